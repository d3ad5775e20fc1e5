"""What `simulate` and `download` return."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._frames import Field, read_file, records_to_frame
from ._records import Record

if TYPE_CHECKING:
    import pandas

    from .types import Scenario, SimulationMetadata
    from .types import SimulationResultModelOption0 as ModelReference

__all__ = ["Download", "SimulationResult"]

CatalogLookup = Callable[[str], Sequence[Field]]


@dataclass(frozen=True)
class SimulationResult:
    """A finished run: its records, its metadata and its identity."""

    simulation_id: str
    preset: str
    """The canonical preset name (``mobile_app`` for the alias ``mobile``)."""
    profile: str
    seed: int
    num_interactions: int
    records: list[Record] = field(repr=False)
    metadata: SimulationMetadata
    scenario: Scenario | None
    """The scenario the run was given (engine 3), as the service echoes it (defaults filled in) with ``placed`` and ``unplaced``; None without one."""
    model: ModelReference | None
    """The model version a model run was made from (``name``, ``version``, ``digest``); None for a preset run."""
    replayed: bool
    """True when the service answered a repeated Idempotency-Key with the first run's answer."""
    request_id: str | None
    body: dict[str, Any] = field(repr=False)
    """The whole JSON body, fields beyond those above included."""
    _catalog: CatalogLookup = field(repr=False, compare=False)

    def to_pandas(self) -> pandas.DataFrame:
        """The records as a DataFrame: integer fields int64, number fields float64, strings as pandas strings."""
        return records_to_frame(self.records, self._catalog(self.preset))


@dataclass(frozen=True)
class Download:
    """A run's records written to a file, byte for byte as the API sent them."""

    path: Path
    format: str
    simulation_id: str
    preset: str | None
    size: int
    """Bytes written."""
    etag: str | None
    resumes: int
    """How many times a cut connection was resumed with `Range` where it stopped."""
    restarts: int
    """How many times the download began again from its first byte (the service answered 200 to a resume)."""
    _catalog: CatalogLookup = field(repr=False, compare=False)

    def to_pandas(self) -> pandas.DataFrame:
        """The file as a DataFrame (Parquet through pandas and pyarrow; the other formats parsed here)."""
        catalog = None if self.preset is None or self.format == "parquet" else self._catalog(self.preset)
        return read_file(self.path, self.format, catalog)
