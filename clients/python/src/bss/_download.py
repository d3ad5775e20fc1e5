"""Resumable downloads of a run's records (GET /v1/simulations/{id}/records)."""

from __future__ import annotations

import os
import re
import urllib.parse
from pathlib import Path
from typing import BinaryIO

from ._errors import ApiError, IncompleteBodyError
from ._transport import Response, Transport

__all__ = ["MEDIA_TYPES", "fetch_to_file", "media_type_of", "unexpected_media_type"]

MEDIA_TYPES: dict[str, str] = {
    "json": "application/json",
    "ndjson": "application/x-ndjson",
    "csv": "text/csv",
    "parquet": "application/vnd.apache.parquet",
}
SUFFIXES: dict[str, str] = {".json": "json", ".ndjson": "ndjson", ".jsonl": "ndjson", ".csv": "csv", ".parquet": "parquet"}
CONTENT_RANGE = re.compile(r"bytes (\d+)-(\d+)/(\d+|\*)")


def format_of(path: Path, file_format: str | None) -> str:
    if file_format is None:
        file_format = SUFFIXES.get(path.suffix.lower())
        if file_format is None:
            raise ValueError(f"cannot tell the format from {path.name!r}: pass format= one of {', '.join(MEDIA_TYPES)}")
    if file_format not in MEDIA_TYPES:
        raise ValueError(f"unknown format {file_format!r}: one of {', '.join(MEDIA_TYPES)}")
    return file_format


def media_type_of(response: Response) -> str:
    return (response.headers.get("Content-Type") or "").split(";")[0].strip().lower()


def unexpected_media_type(response: Response, asked: str) -> ApiError:
    response.close()
    received = media_type_of(response) or "no content type"
    return ApiError(
        f"the service answered {received} where {asked} was asked",
        status=response.status,
        code="unexpected_response",
        request_id=response.headers.get("X-Request-ID"),
    )


def _strong_etag(value: str | None) -> str | None:
    # Only a strong validator may guard a byte range (RFC 9110 13.1.5); a weak one means start again.
    return value if value is not None and value.startswith('"') else None


class DownloadState:
    def __init__(self) -> None:
        self.written = 0
        self.etag: str | None = None
        self.total: int | None = None
        self.resumes = 0
        self.restarts = 0
        self.cuts = 0
        self.headers: dict[str, str] = {}


def fetch_to_file(transport: Transport, simulation_id: str, target: Path, file_format: str, max_resumes: int) -> DownloadState:
    """Writes the records to `target` through a `.part` file renamed at the end, so a failed download never
    leaves a partial file under the real name. A connection cut mid-body is resumed with `Range: bytes=N-`
    guarded by `If-Range` (the strong ETag of the first answer); a 200 to that means the service could not
    serve the range (or the tag changed), and the file is written again from its first byte.
    """
    path = f"/v1/simulations/{urllib.parse.quote(simulation_id, safe='')}/records"
    asked = MEDIA_TYPES[file_format]
    state = DownloadState()
    part = target.with_name(target.name + ".part")
    try:
        with part.open("wb") as out:
            while True:
                headers = {"Accept": asked}
                if state.written > 0 and state.etag is not None:
                    headers.update({"Range": f"bytes={state.written}-", "If-Range": state.etag})
                response = transport.request("GET", path, headers=headers)
                if not _accept(response, state, out):
                    continue
                if media_type_of(response) != asked:
                    raise unexpected_media_type(response, asked)
                try:
                    for chunk in response.chunks():
                        out.write(chunk)
                        state.written += len(chunk)
                except IncompleteBodyError:
                    state.cuts += 1
                    if state.cuts > max_resumes:
                        raise
                    continue
                if state.total is not None and state.written != state.total:
                    raise IncompleteBodyError(transport.url(path), f"{state.written} of {state.total} bytes arrived", received=state.written, expected=state.total)
                break
        os.replace(part, target)
    except BaseException:
        part.unlink(missing_ok=True)
        raise
    return state


def _accept(response: Response, state: DownloadState, out: BinaryIO) -> bool:
    """Decides where the answer's bytes go: appended (206 at our offset) or from the start (200)."""
    if response.status == 206:
        match = CONTENT_RANGE.fullmatch((response.headers.get("Content-Range") or "").strip())
        if match is None or int(match.group(1)) != state.written:
            # Not the slice asked for: drop what we have and ask for the whole body, unguarded.
            response.close()
            state.etag = None
            state.written = 0
            out.seek(0)
            out.truncate()
            state.restarts += 1
            return False
        state.resumes += 1
        state.total = None if match.group(3) == "*" else int(match.group(3))
        return True
    if state.written > 0:
        state.restarts += 1
        out.seek(0)
        out.truncate()
        state.written = 0
    state.etag = _strong_etag(response.headers.get("ETag"))
    state.total = response.content_length
    state.headers = dict(response.headers.items())
    return True
