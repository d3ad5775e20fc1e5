"""Record streams: NDJSON parsed one line at a time, never the whole run in memory."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from types import TracebackType
from typing import Any

from ._transport import Response

__all__ = ["Record", "RecordStream", "SimulationIdentity", "identity_of", "iter_ndjson"]

Record = dict[str, Any]
"""One record as the API sends it: ``sequence_id``, ``interaction_id``, ``state``, the preset's fields
(and, from engine 3, ``scenario_event``); values are ``int``, ``float``, ``str`` or ``None`` (JSON's)."""


class SimulationIdentity:
    """The run's identity, from the ``Simulation-*`` headers every format carries."""

    def __init__(self, headers: Mapping[str, str]) -> None:
        seed = headers.get("Simulation-Seed")
        self.simulation_id: str | None = headers.get("Simulation-Id")
        self.preset: str | None = headers.get("Simulation-Preset")
        self.profile: str | None = headers.get("Simulation-Profile")
        self.seed: int | None = int(seed) if seed is not None and seed.isdigit() else None
        self.engine_version: str | None = headers.get("Simulation-Engine-Version")
        self.replayed: bool = headers.get("Idempotent-Replayed") == "true"
        self.request_id: str | None = headers.get("X-Request-ID")


def identity_of(headers: Mapping[str, str]) -> SimulationIdentity:
    return SimulationIdentity(headers)


def iter_ndjson(chunks: Iterator[bytes]) -> Iterator[Record]:
    """Records from NDJSON bytes as they arrive; a line may straddle chunks (and so may a UTF-8 character)."""
    pending = b""
    for chunk in chunks:
        pending += chunk
        lines = pending.split(b"\n")
        pending = lines.pop()
        for line in lines:
            if line.strip():
                yield json.loads(line)
    if pending.strip():
        yield json.loads(pending)


class RecordStream(Iterator[Record]):
    """The records of one run, one at a time, as the service makes them.

    Iterate it once; use it in a ``with`` block (or call ``close()``) to let go of the connection when you
    stop early. A body cut short raises ``IncompleteBodyError`` instead of ending quietly. The run's
    identity is known before the first record: ``simulation_id``, ``preset``, ``profile``, ``seed``,
    ``engine_version``.
    """

    def __init__(self, response: Response, simulation_id: str) -> None:
        self._response = response
        self._records = iter_ndjson(response.chunks())
        identity = identity_of(response.headers)
        self.simulation_id: str = simulation_id
        self.preset = identity.preset
        self.profile = identity.profile
        self.seed = identity.seed
        self.engine_version = identity.engine_version
        self.replayed = identity.replayed
        self.request_id = identity.request_id

    @property
    def bytes_received(self) -> int:
        return self._response.received

    def __iter__(self) -> RecordStream:
        return self

    def __next__(self) -> Record:
        return next(self._records)

    def close(self) -> None:
        self._response.close()

    def __enter__(self) -> RecordStream:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None) -> None:
        self.close()
