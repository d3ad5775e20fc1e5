"""DataFrames of records, typed from the catalog: pandas and pyarrow are used only when installed."""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ._records import Record, iter_ndjson

if TYPE_CHECKING:
    import pandas

__all__ = ["Field", "FieldType", "fields_of", "read_file", "records_to_frame", "require_pandas"]

FieldType = Literal["integer", "number", "string"]
Field = tuple[str, FieldType]

# Integer fields are int64, number fields float64, strings pandas' nullable string (so engine 3's
# `scenario_event`, null outside an event, reads as <NA> rather than None in an object column).
DTYPES: dict[str, str] = {"integer": "int64", "number": "float64", "string": "string"}

# Engine 4's `event_time` (ISO 8601 UTC with milliseconds) is a timezone-aware datetime column, whatever
# the format the run came in (JSON, NDJSON and CSV print it as text; Parquet stores it as TIMESTAMP(MILLIS, UTC)).
TIME_FIELDS = frozenset({"event_time"})
TIME_DTYPE = "datetime64[ns, UTC]"


def _times(pd: Any, values: Any) -> Any:
    return pd.to_datetime(pd.Series(values, dtype="object"), utc=True).astype(TIME_DTYPE)


def require_pandas() -> Any:
    try:
        import pandas
    except ImportError as error:
        raise ImportError(
            "to_pandas() needs pandas, which is not installed: `pip install pandas` (or `pip install bss[pandas]`); "
            "on Debian or Ubuntu, `apt install python3-pandas` and a virtual environment made with --system-site-packages"
        ) from error
    return pandas


def _kind_of(values: Sequence[object]) -> FieldType:
    present = [value for value in values if value is not None]
    if present and all(isinstance(value, int) and not isinstance(value, bool) for value in present):
        return "integer"
    if present and all(isinstance(value, (int, float)) and not isinstance(value, bool) for value in present):
        return "number"
    return "string"


def fields_of(records: Sequence[Record], catalog: Sequence[Field] | None) -> list[Field]:
    """The fields the records carry, in the records' (the wire's) order, typed from the catalog or else from values.

    The catalog describes the newest engine; a run of an older one lacks its newer fields, so only the
    fields the first record has are kept. A model's catalog lists its own fields, not engine 4's
    `event_time`, which still comes right after `interaction_id` as in the records.
    """
    present = list(records[0]) if records else [name for name, _ in catalog or []]
    described = dict(catalog or [])
    sample = records[:1000]
    return [(name, described.get(name) or _kind_of([record.get(name) for record in sample])) for name in present]


def records_to_frame(records: Sequence[Record], catalog: Sequence[Field] | None) -> pandas.DataFrame:
    """One column per field with the dtype of its catalog type: int64, float64 or string; event_time a UTC datetime."""
    pd = require_pandas()
    columns: dict[str, Any] = {}
    for name, kind in fields_of(records, catalog):
        values = [record.get(name) for record in records]
        dtype = DTYPES[kind]
        if kind == "integer" and any(value is None for value in values):
            dtype = "Int64"  # a missing integer stays an integer, not a float
        columns[name] = _times(pd, values) if name in TIME_FIELDS else pd.Series(values, dtype=dtype)
    return pd.DataFrame(columns)


def _with_catalog_dtypes(frame: pandas.DataFrame, catalog: Sequence[Field] | None) -> pandas.DataFrame:
    """A frame pandas read itself (Parquet) with the dtypes records_to_frame gives the other formats.

    pyarrow hands strings to pandas as `object` (or `str`, by pandas' version): they become the nullable
    `string`, so a run's frame has the same dtypes whatever format it was read from.
    """
    described = dict(catalog or [])
    for name in frame.columns:
        if name in TIME_FIELDS:
            continue
        kind = described.get(name) or ("string" if frame[name].dtype == object else None)
        if kind == "string" and str(frame[name].dtype) != DTYPES["string"]:
            frame[name] = frame[name].astype(DTYPES["string"])
    return frame


def _parse_csv(path: Path, catalog: Sequence[Field] | None) -> list[Record]:
    with path.open("r", encoding="utf-8", newline="") as handle:
        rows = csv.reader(handle)
        header: list[str] = next(rows, [])
        table = list(rows)
    described = dict(catalog or [])
    records: list[Record] = [{} for _ in table]
    for index, name in enumerate(header):
        texts = [row[index] for row in table]
        kind = described.get(name) or _guess(texts)
        for record, text in zip(records, texts):
            # A null (engine 3's scenario_event outside an event) is an empty field in CSV.
            record[name] = None if text == "" else int(text) if kind == "integer" else float(text) if kind == "number" else text
    return records


def _guess(texts: Sequence[str]) -> FieldType:
    """A column the catalog does not describe: numbers are printed in CSV exactly as in JSON."""
    values: list[object] = []
    for text in texts:
        if text == "":
            values.append(None)
            continue
        try:
            values.append(json.loads(text) if text[0] in "-0123456789" else text)
        except ValueError:
            values.append(text)
    return _kind_of(values)


def read_file(path: Path, file_format: str, catalog: Sequence[Field] | None) -> pandas.DataFrame:
    """A downloaded file as a DataFrame: Parquet through pandas (pyarrow), the others parsed here."""
    pd = require_pandas()
    if file_format == "parquet":
        try:
            import pyarrow  # noqa: F401  (pandas' Parquet engine)
        except ImportError as error:
            raise ImportError(
                "reading Parquet needs pyarrow, which is not installed: `pip install pyarrow` (or `pip install bss[parquet]`), "
                "or download the run as CSV or NDJSON instead"
            ) from error
        frame = _with_catalog_dtypes(pd.read_parquet(path, engine="pyarrow"), catalog)
        # Parquet stores event_time as TIMESTAMP(MILLIS, UTC): pyarrow reads it as a UTC datetime already.
        for name in TIME_FIELDS & set(frame.columns):
            frame[name] = frame[name].astype(TIME_DTYPE)
        return frame
    if file_format == "ndjson":
        with path.open("rb") as handle:
            records = list(iter_ndjson(iter(lambda: handle.read(1 << 16), b"")))
    elif file_format == "json":
        records = json.loads(path.read_bytes())["data"]
    elif file_format == "csv":
        records = _parse_csv(path, catalog)
    else:
        raise ValueError(f"unknown format {file_format!r}")
    return records_to_frame(records, catalog)
