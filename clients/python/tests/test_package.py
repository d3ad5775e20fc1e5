"""The installed package: its public names, its types marker, Python 3.10 syntax, optional pandas/pyarrow."""

from __future__ import annotations

import ast
import importlib.resources
import importlib.util
import sys
import tempfile
import unittest
from pathlib import Path
from unittest import mock

import bss
import bss.types
from bss._frames import read_file, records_to_frame


class PackageTest(unittest.TestCase):
    def test_every_public_name_exists_and_the_package_is_typed(self) -> None:
        for name in bss.__all__:
            self.assertTrue(hasattr(bss, name), name)
        for name in bss.types.__all__:
            self.assertTrue(hasattr(bss.types, name), name)
        self.assertTrue(importlib.resources.files("bss").joinpath("py.typed").is_file())
        self.assertTrue(issubclass(bss.ApiError, bss.BssError))
        self.assertTrue(issubclass(bss.IncompleteBodyError, bss.ApiConnectionError))

    def test_the_sources_parse_as_python_3_10(self) -> None:
        for source in Path(bss.__file__).parent.glob("*.py"):
            with self.subTest(source=source.name):
                ast.parse(source.read_text(encoding="utf-8"), filename=str(source), feature_version=(3, 10))

    def test_client_settings_come_from_the_environment(self) -> None:
        with mock.patch.dict("os.environ", {"BSS_API_URL": "http://service.example:8080/", "BSS_API_KEY": "bs_live_env"}):
            client = bss.Client()
            self.assertEqual(client.api_url, "http://service.example:8080")
            self.assertEqual(client._transport.api_key, "bs_live_env")
            self.assertEqual(bss.Client("http://other:1", "bs_live_arg")._transport.api_key, "bs_live_arg")
        with mock.patch.dict("os.environ", {}, clear=True):
            self.assertEqual(bss.Client().api_url, "http://localhost:3000")
            self.assertIsNone(bss.Client()._transport.api_key)

    def test_to_pandas_without_pandas_says_how_to_install_it(self) -> None:
        with mock.patch.dict(sys.modules, {"pandas": None}):
            with self.assertRaises(ImportError) as caught:
                records_to_frame([{"sequence_id": 1}], [("sequence_id", "integer")])
        self.assertIn("pip install pandas", str(caught.exception))

    def test_parquet_without_pyarrow_says_how_to_install_it(self) -> None:
        with tempfile.TemporaryDirectory() as directory, mock.patch.dict(sys.modules, {"pyarrow": None}):
            with self.assertRaises(ImportError) as caught:
                read_file(Path(directory) / "run.parquet", "parquet", None)
        self.assertIn("pip install pyarrow", str(caught.exception))

    def test_parquet_reads_strings_with_the_dtype_of_csv_and_ndjson(self) -> None:
        import pandas

        catalog = [("sequence_id", "integer"), ("state", "string"), ("daily_return", "number"), ("scenario_event", "string")]
        # What pandas' pyarrow engine hands back for our file: strings as object, nulls as None.
        read_by_pyarrow = pandas.DataFrame(
            {
                "sequence_id": pandas.Series([1, 1], dtype="int64"),
                "state": pandas.Series(["Stable", "Drawdown"], dtype=object),
                "daily_return": pandas.Series([0.5, -0.25], dtype="float64"),
                "scenario_event": pandas.Series([None, "market_crash"], dtype=object),
            }
        )
        with tempfile.TemporaryDirectory() as directory:
            csv_path = Path(directory) / "run.csv"
            csv_path.write_text("sequence_id,state,daily_return,scenario_event\r\n1,Stable,0.5,\r\n1,Drawdown,-0.25,market_crash\r\n", encoding="utf-8")
            from_csv = read_file(csv_path, "csv", catalog)
            with mock.patch.dict(sys.modules, {"pyarrow": mock.MagicMock()}), mock.patch.object(pandas, "read_parquet", return_value=read_by_pyarrow):
                from_parquet = read_file(Path(directory) / "run.parquet", "parquet", catalog)
        self.assertEqual(dict(from_parquet.dtypes.astype(str)), dict(from_csv.dtypes.astype(str)))
        self.assertEqual(str(from_parquet["state"].dtype), "string")
        self.assertTrue(from_parquet.equals(from_csv))


class BuildBackendTest(unittest.TestCase):
    """The in-tree PEP 517 backend (clients/python/build_backend.py), loaded from beside these tests."""

    def setUp(self) -> None:
        root = Path(__file__).resolve().parent.parent
        spec = importlib.util.spec_from_file_location("build_backend", root / "build_backend.py")
        assert spec is not None and spec.loader is not None
        self.backend = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(self.backend)
        self.root = root

    def test_its_pyproject_reader_for_python_3_10_agrees_with_tomllib(self) -> None:
        import tomllib

        text = (self.root / "pyproject.toml").read_text(encoding="utf-8")
        self.assertEqual(self.backend._read_simple_toml(text)["project"], tomllib.loads(text)["project"])
        self.assertEqual(self.backend.get_requires_for_build_wheel(), [])

    def test_wheel_and_sdist_hold_the_package_and_its_metadata(self) -> None:
        import tarfile
        import zipfile

        with tempfile.TemporaryDirectory() as directory:
            wheel = zipfile.ZipFile(Path(directory) / self.backend.build_wheel(directory))
            names = set(wheel.namelist())
            self.assertTrue({"bss/__init__.py", "bss/py.typed", "bss/types.py", "bss-0.1.0.dist-info/RECORD"} <= names)
            self.assertIn("Requires-Python: >=3.10", wheel.read("bss-0.1.0.dist-info/METADATA").decode())
            with tarfile.open(Path(directory) / self.backend.build_sdist(directory)) as sdist:
                members = set(sdist.getnames())
            self.assertTrue({"bss-0.1.0/pyproject.toml", "bss-0.1.0/build_backend.py", "bss-0.1.0/src/bss/_client.py", "bss-0.1.0/PKG-INFO"} <= members)


if __name__ == "__main__":
    unittest.main()
