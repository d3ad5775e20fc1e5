"""The client: one object per service and key, a method per call of the API."""

from __future__ import annotations

import os
import urllib.parse
import uuid
from datetime import datetime
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, cast

from ._download import MEDIA_TYPES, fetch_to_file, format_of, media_type_of, unexpected_media_type
from ._errors import ApiError
from ._frames import Field
from ._instant import instant
from ._keys import ApiKeys
from ._models import Models
from ._records import RecordStream
from ._results import Download, SimulationResult
from ._streams import Streams
from ._transport import Response, RetryNotice, Transport
from .types import Account, Preset, PresetFidelity, Run, RunList, ScenarioRequest, Usage

__all__ = ["DEFAULT_API_URL", "Client"]

DEFAULT_API_URL = "http://localhost:3000"
VERSION = "0.1.0"

Format = Literal["json", "ndjson", "csv", "parquet"]
RunStatus = Literal["queued", "completed", "failed", "timed_out", "cancelled"]


def _path(template: str, value: str) -> str:
    return template.format(urllib.parse.quote(value, safe=""))


class Client:
    """A client of the Behavioral Simulation Service.

    ``api_url`` defaults to ``BSS_API_URL`` (else ``http://localhost:3000``) and ``api_key`` to
    ``BSS_API_KEY``. A 429 or 503 is retried after its ``Retry-After``, at most ``max_retries`` times
    (longer waits than ``max_retry_wait`` seconds are not waited for); ``on_retry`` hears of each wait.
    Every failure raises ``ApiError`` (the service said no) or ``ApiConnectionError`` (no whole answer).
    """

    def __init__(
        self,
        api_url: str | None = None,
        api_key: str | None = None,
        *,
        max_retries: int = 3,
        max_retry_wait: float = 60.0,
        timeout: float | None = 120.0,
        on_retry: Callable[[RetryNotice], None] | None = None,
    ) -> None:
        self.api_url = (api_url or os.environ.get("BSS_API_URL") or DEFAULT_API_URL).rstrip("/")
        key = api_key if api_key is not None else os.environ.get("BSS_API_KEY")
        self._transport = Transport(
            self.api_url,
            key or None,
            max_retries=max_retries,
            max_retry_wait=max_retry_wait,
            timeout=timeout,
            on_retry=on_retry,
            user_agent=f"bss-python/{VERSION}",
        )
        self._presets: dict[str, Preset] = {}
        self.keys = ApiKeys(self._transport)
        """API keys: ``list()``, ``create(name)``, ``revoke(key_id)``, ``roll(key_id)``."""
        self.models = Models(self._transport)
        """Your own models: ``put(name, definition)``, ``get(name)``, ``list()``, ``validate(definition)``, ``delete(name)``."""
        self.streams = Streams(self._transport)
        """Live streams: ``create(preset, n, speed=..., ...)``, ``get(id)``, ``list()``, ``cancel(id)``, ``events(id)``."""

    def __repr__(self) -> str:
        return f"Client(api_url={self.api_url!r})"

    def _get(self, path: str, query: Mapping[str, object] | None = None) -> Any:
        return self._transport.request("GET", path, query=query).json()

    # Catalog (public) -------------------------------------------------------------------------------

    def presets(self) -> list[Preset]:
        """Every preset: profiles, states, record fields and engine versions."""
        presets = cast("list[Preset]", self._get("/v1/presets"))
        self._presets.update({preset["name"]: preset for preset in presets})
        return presets

    def preset(self, name: str) -> Preset:
        """One preset, by name or alias (the canonical one for an alias)."""
        preset = cast(Preset, self._get(_path("/v1/presets/{}", name)))
        self._presets[preset["name"]] = preset
        return preset

    def fidelity(self, preset: str, *, engine_version: str | None = None) -> PresetFidelity:
        """The preset's stylized facts, measured on fixed-seed samples of an engine (the newest by default)."""
        return cast(PresetFidelity, self._get(_path("/v1/presets/{}/fidelity", preset), {"engine_version": engine_version}))

    def _record_fields(self, preset: str) -> list[Field]:
        # A model version (`name@version`, as Simulation-Model names it) has its own catalog.
        if "@" in preset:
            name, version = preset.split("@", 1)
            fields = self.models.get(name, int(version))["catalog"]["record_fields"]
            return [(field["name"], field["type"]) for field in fields]
        entry = self._presets.get(preset) or self.preset(preset)
        return [(field["name"], field["type"]) for field in entry["record_fields"]]

    # Account -----------------------------------------------------------------------------------------

    def account(self) -> Account:
        return cast(Account, self._get("/v1/account"))

    def usage(self) -> Usage:
        """The plan, this month's usage and what remains of it."""
        return cast(Usage, self._get("/v1/usage"))

    # Simulations -------------------------------------------------------------------------------------

    def simulate(
        self,
        preset: str | None = None,
        n: int | None = None,
        *,
        model: str | None = None,
        profile: str | None = None,
        seed: int | None = None,
        engine_version: str | int | None = None,
        scenario: ScenarioRequest | Mapping[str, Any] | None = None,
        start_time: str | datetime | None = None,
        order: Literal["sequence", "time"] | None = None,
        population: int | None = None,
        idempotency_key: str | None = None,
    ) -> SimulationResult:
        """Runs a simulation of ``n`` interactions and returns its records and metadata.

        Always sent with an ``Idempotency-Key`` (a fresh UUID unless given), so a retry never runs twice.
        ``scenario`` (engine 3) is passed as given: ``{"events": [{"type", "sequence", "at_step",
        "duration", "intensity"}]}``; the result's ``.scenario`` is the service's echo of it.
        ``start_time`` (an ISO 8601 UTC string or an aware ``datetime``), ``order`` (``"sequence"`` or
        ``"time"``) and ``population`` are engine 4's: records carry ``event_time``, and ``order="time"``
        merges a population of subjects in event-time order.
        ``model`` (``"name"`` or ``"name@version"``) runs one of your models instead of a preset: give one of
        the two; the result's ``.model`` names the version that ran.
        """
        request = _SimulationRequest.of(preset, n, model, profile, seed, engine_version, scenario, idempotency_key, start_time, order, population)
        response = self._post_simulation(request, "json")
        if media_type_of(response) != MEDIA_TYPES["json"]:
            raise unexpected_media_type(response, MEDIA_TYPES["json"])
        result = response.json()
        ran = result.get("model")
        catalog = self._record_fields if ran is None else (lambda _preset: self._record_fields(f"{ran['name']}@{ran['version']}"))
        return SimulationResult(
            simulation_id=result["simulation_id"],
            preset=result["preset"],
            profile=result["profile"],
            seed=result["seed"],
            num_interactions=result["num_interactions"],
            records=result["data"],
            metadata=result["metadata"],
            scenario=result.get("scenario"),
            model=ran,
            replayed=response.headers.get("Idempotent-Replayed") == "true",
            request_id=response.headers.get("X-Request-ID"),
            body=result,
            _catalog=catalog,
        )

    def iter_records(
        self,
        preset: str | None = None,
        n: int | None = None,
        *,
        model: str | None = None,
        profile: str | None = None,
        seed: int | None = None,
        engine_version: str | int | None = None,
        scenario: ScenarioRequest | Mapping[str, Any] | None = None,
        start_time: str | datetime | None = None,
        order: Literal["sequence", "time"] | None = None,
        population: int | None = None,
        idempotency_key: str | None = None,
    ) -> RecordStream:
        """Runs a simulation and streams its records (NDJSON) one at a time, without holding the run.

        Use it in a ``with`` block when you may stop early. Same arguments as ``simulate``.
        """
        request = _SimulationRequest.of(preset, n, model, profile, seed, engine_version, scenario, idempotency_key, start_time, order, population)
        return self._record_stream(self._post_simulation(request, "ndjson"))

    def _post_simulation(self, request: _SimulationRequest, format: Format) -> Response:
        # Always with an Idempotency-Key, so the transport's retry of a 429/503 never runs twice.
        headers = {"Accept": MEDIA_TYPES[format], "Idempotency-Key": request.idempotency_key or str(uuid.uuid4())}
        return self._transport.request("POST", "/v1/simulations", body=request.body(), headers=headers)

    def _record_stream(self, response: Response) -> RecordStream:
        if media_type_of(response) != MEDIA_TYPES["ndjson"]:
            raise unexpected_media_type(response, MEDIA_TYPES["ndjson"])
        simulation_id = response.headers.get("Simulation-Id")
        if simulation_id is None:
            response.close()
            raise ApiError(
                "the service sent no Simulation-Id with the records; it may predate output formats",
                status=response.status,
                code="unexpected_response",
                request_id=response.headers.get("X-Request-ID"),
            )
        return RecordStream(response, simulation_id)

    def history(
        self,
        *,
        preset: str | None = None,
        status: RunStatus | None = None,
        page_size: int = 20,
        limit: int | None = None,
    ) -> Iterator[Run]:
        """The account's runs, newest first, following ``next_cursor`` page after page.

        ``page_size`` is the runs per request (1–100); ``limit`` stops after that many runs (all by default).
        """
        cursor: str | None = None
        yielded = 0
        while True:
            page = cast(RunList, self._get("/v1/simulations", {"limit": page_size, "cursor": cursor, "preset": preset, "status": status}))
            for run in page["data"]:
                if limit is not None and yielded >= limit:
                    return
                yielded += 1
                yield run
            cursor = page["next_cursor"]
            if cursor is None:
                return

    def run(self, simulation_id: str) -> Run:
        """One run of the account's history."""
        return cast(Run, self._get(_path("/v1/simulations/{}", simulation_id)))

    def replay(self, simulation_id: str) -> RecordStream:
        """A completed run's records again (NDJSON, streamed), byte for byte as the first time."""
        response = self._transport.request("GET", _path("/v1/simulations/{}/records", simulation_id), headers={"Accept": MEDIA_TYPES["ndjson"]})
        return self._record_stream(response)

    def download(self, simulation_id: str, path: str | os.PathLike[str], *, format: Format | None = None, max_resumes: int = 5) -> Download:
        """Writes a completed run's records to ``path`` in ``format`` (by default from the file's suffix:
        ``.csv``, ``.ndjson``/``.jsonl``, ``.json``, ``.parquet``), byte for byte as the API serves them.

        A connection cut mid-body is resumed where it stopped (``Range`` guarded by ``If-Range``), at most
        ``max_resumes`` times; the file appears under its name only once it is whole.
        """
        target = Path(path)
        file_format = format_of(target, format)
        state = fetch_to_file(self._transport, simulation_id, target, file_format, max_resumes)
        return Download(
            path=target,
            format=file_format,
            simulation_id=state.headers.get("Simulation-Id") or simulation_id,
            preset=state.headers.get("Simulation-Model") or state.headers.get("Simulation-Preset"),
            size=state.written,
            etag=state.etag,
            resumes=state.resumes,
            restarts=state.restarts,
            _catalog=self._record_fields,
        )

    def dataset(
        self,
        simulation_id: str,
        path: str | os.PathLike[str],
        *,
        layout: Literal["timeeval", "nab"] = "timeeval",
        field: str | None = None,
    ) -> Path:
        """Writes a completed scenario run to ``path`` as a zip archive that detection benchmarks load:
        ``timeeval`` (per sequence a labelled test file and its matched clean train file, and TimeEval's
        ``datasets.json``) or ``nab`` (per sequence ``timestamp,value`` of ``field`` and NAB's label
        files); both hold ``manifest.json``. The file appears under its name only once it is whole.
        """
        target = Path(path)
        asked = "application/zip"
        response = self._transport.request(
            "GET",
            _path("/v1/simulations/{}/dataset", simulation_id),
            query={"layout": layout, "field": field},
            headers={"Accept": asked},
        )
        if media_type_of(response) != asked:
            raise unexpected_media_type(response, asked)
        part = target.with_name(target.name + ".part")
        try:
            with part.open("wb") as out:
                for chunk in response.chunks():
                    out.write(chunk)
            os.replace(part, target)
        except BaseException:
            part.unlink(missing_ok=True)
            raise
        return target


@dataclass(frozen=True)
class _SimulationRequest:
    """What ``simulate`` and ``iter_records`` send: the body's fields and the key that makes a retry safe."""

    preset: str | None
    model: str | None
    n: int
    profile: str | None
    seed: int | None
    engine_version: str | int | None
    scenario: ScenarioRequest | Mapping[str, Any] | None
    idempotency_key: str | None
    start_time: str | datetime | None = None
    order: Literal["sequence", "time"] | None = None
    population: int | None = None

    @staticmethod
    def of(
        preset: str | None,
        n: int | None,
        model: str | None,
        profile: str | None,
        seed: int | None,
        engine_version: str | int | None,
        scenario: ScenarioRequest | Mapping[str, Any] | None,
        idempotency_key: str | None,
        start_time: str | datetime | None = None,
        order: Literal["sequence", "time"] | None = None,
        population: int | None = None,
    ) -> _SimulationRequest:
        if (preset is None) == (model is None):
            raise ValueError("give exactly one of preset and model")
        if n is None:
            raise ValueError("n (the number of interactions) is required")
        return _SimulationRequest(preset, model, n, profile, seed, engine_version, scenario, idempotency_key, start_time, order, population)

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"preset": self.preset} if self.model is None else {"model": self.model}
        body["num_interactions"] = self.n
        optional = {
            "profile": self.profile,
            "seed": self.seed,
            "engine_version": None if self.engine_version is None else str(self.engine_version),
            "scenario": None if self.scenario is None else dict(self.scenario),
            "start_time": instant(self.start_time),
            "order": self.order,
            "population": self.population,
        }
        body.update({name: value for name, value in optional.items() if value is not None})
        return body

