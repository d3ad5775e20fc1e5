"""A PEP 517 build backend for this one package, standard library only.

pip builds a project in an isolated environment into which it installs `build-system.requires`; with
setuptools there, that means a download. This backend requires nothing, so the package installs on a
machine without an index (`pip install ./clients/python`). It copies `src/bss` into a wheel (PEP 427)
with `zipfile`, and the tree into an sdist with `tarfile`.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent
PACKAGE = ROOT / "src" / "bss"
SDIST_FILES = ("pyproject.toml", "build_backend.py", "README.md")


def _read_project() -> dict[str, object]:
    """The `[project]` table of pyproject.toml (tomllib from 3.11; a reader of its simple subset before)."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    try:
        import tomllib
    except ImportError:  # Python 3.10
        return _read_simple_toml(text).get("project", {})
    return tomllib.loads(text)["project"]


def _read_simple_toml(text: str) -> dict[str, dict[str, object]]:
    """Tables of `key = "string"` and `key = ["string", ...]` lines: all this project's file uses."""
    tables: dict[str, dict[str, object]] = {}
    current: dict[str, object] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("#"):
            continue
        header = re.fullmatch(r"\[([\w.-]+)\]", line)
        if header:
            *parents, last = header.group(1).split(".")
            table = tables.setdefault(parents[0], {}) if parents else tables.setdefault(last, {})
            current = table.setdefault(last, {}) if parents else table  # type: ignore[assignment]
            continue
        pair = re.fullmatch(r'([\w-]+)\s*=\s*(.+)', line)
        if pair:
            value = pair.group(2).strip()
            current[pair.group(1)] = re.findall(r'"([^"]*)"', value) if value.startswith("[") else value.strip('"')
    return tables


def _metadata() -> str:
    project = _read_project()
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {project['name']}",
        f"Version: {project['version']}",
        f"Summary: {project['description']}",
        f"Requires-Python: {project['requires-python']}",
    ]
    extras = project.get("optional-dependencies", {})
    assert isinstance(extras, dict)
    for extra, requirements in extras.items():
        lines.append(f"Provides-Extra: {extra}")
        lines.extend(f'Requires-Dist: {requirement}; extra == "{extra}"' for requirement in requirements)
    readme = (ROOT / str(project["readme"])).read_text(encoding="utf-8")
    lines.append("Description-Content-Type: text/markdown")
    return "\n".join(lines) + "\n\n" + readme


def _dist_info() -> str:
    project = _read_project()
    return f"{project['name']}-{project['version']}.dist-info"


def _wheel_name() -> str:
    project = _read_project()
    return f"{project['name']}-{project['version']}-py3-none-any.whl"


def _record_line(path: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
    return f"{path},sha256={digest},{len(data)}"


def _write_wheel(directory: str, files: dict[str, bytes]) -> str:
    dist_info = _dist_info()
    files = {
        **files,
        f"{dist_info}/METADATA": _metadata().encode("utf-8"),
        f"{dist_info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: bss build_backend\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        f"{dist_info}/top_level.txt": b"bss\n",
    }
    record = [_record_line(path, data) for path, data in files.items()] + [f"{dist_info}/RECORD,,"]
    files[f"{dist_info}/RECORD"] = ("\n".join(record) + "\n").encode("utf-8")
    name = _wheel_name()
    with zipfile.ZipFile(os.path.join(directory, name), "w", compression=zipfile.ZIP_DEFLATED) as wheel:
        for path, data in files.items():
            # A fixed timestamp makes the wheel's bytes depend on its contents only.
            info = zipfile.ZipInfo(path, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            wheel.writestr(info, data, compress_type=zipfile.ZIP_DEFLATED)
    return name


def _package_files() -> dict[str, bytes]:
    return {
        f"bss/{path.relative_to(PACKAGE).as_posix()}": path.read_bytes()
        for path in sorted(PACKAGE.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    }


def get_requires_for_build_wheel(config_settings: object = None) -> list[str]:
    return []


def get_requires_for_build_sdist(config_settings: object = None) -> list[str]:
    return []


def get_requires_for_build_editable(config_settings: object = None) -> list[str]:
    return []


def build_wheel(wheel_directory: str, config_settings: object = None, metadata_directory: object = None) -> str:
    return _write_wheel(wheel_directory, _package_files())


def build_editable(wheel_directory: str, config_settings: object = None, metadata_directory: object = None) -> str:
    # PEP 660: a .pth file puts src/ on sys.path, so edits to the sources take effect without reinstalling.
    return _write_wheel(wheel_directory, {"bss_editable.pth": f"{ROOT / 'src'}\n".encode("utf-8")})


def build_sdist(sdist_directory: str, config_settings: object = None) -> str:
    project = _read_project()
    base = f"{project['name']}-{project['version']}"
    name = f"{base}.tar.gz"
    paths = [ROOT / file for file in SDIST_FILES] + [p for p in sorted(PACKAGE.rglob("*")) if p.is_file() and "__pycache__" not in p.parts]
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz", format=tarfile.PAX_FORMAT) as sdist:
        for path in paths:
            data = path.read_bytes()
            info = tarfile.TarInfo(f"{base}/{path.relative_to(ROOT).as_posix()}")
            info.size = len(data)
            info.mode = 0o644
            sdist.addfile(info, io.BytesIO(data))
        pkg_info = _metadata().encode("utf-8")
        info = tarfile.TarInfo(f"{base}/PKG-INFO")
        info.size = len(pkg_info)
        sdist.addfile(info, io.BytesIO(pkg_info))
    return name
