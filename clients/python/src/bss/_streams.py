"""Live streams (`client.streams`, docs/streams.md): a run delivered as it happens, read over Server-Sent
Events and resumed with ``Last-Event-ID`` where a connection broke."""

from __future__ import annotations

import codecs
import json
import re
import urllib.parse
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from types import TracebackType
from typing import Any, TypedDict, cast

from ._download import media_type_of, unexpected_media_type
from ._errors import ApiConnectionError, IncompleteBodyError
from ._instant import instant
from ._records import Record
from ._transport import Response, Transport
from .types import CreatedStream, ScenarioRequest, Stream, StreamList, StreamRequestDisorder, StreamRequestSinkOption0, StreamRequestSinkOption1

__all__ = ["StreamEnvelope", "StreamEvents", "Streams"]

EVENT_STREAM = "text/event-stream"
# Reconnection waits double from this (seconds) unless the service names another with `retry:`.
FIRST_WAIT = 0.5
MAX_WAIT = 8.0


class StreamEnvelope(TypedDict):
    """One delivered event (docs/streams.md, "The envelope")."""

    position: int
    """Its place in the delivery order, 1-based (the SSE message's ``id``)."""
    record: Record
    """The engine-4 record, as ``simulate(..., order="time")`` gives it for the same inputs."""
    delay_ms: int
    """How late it is delivered against its ``event_time``."""
    duplicate: bool
    """True for the second delivery of a record."""


class Streams:
    def __init__(self, transport: Transport) -> None:
        self._transport = transport

    def create(
        self,
        preset: str | None = None,
        n: int | None = None,
        *,
        num_interactions: int | None = None,
        model: str | None = None,
        profile: str | None = None,
        seed: int | None = None,
        scenario: ScenarioRequest | Mapping[str, Any] | None = None,
        engine_version: str | int | None = None,
        population: int | None = None,
        start_time: str | datetime | None = None,
        speed: float | None = None,
        disorder: StreamRequestDisorder | Mapping[str, float] | None = None,
        sink: StreamRequestSinkOption0 | StreamRequestSinkOption1 | Mapping[str, Any] | None = None,
    ) -> CreatedStream:
        """Starts a stream of ``n`` interactions (``num_interactions=`` says the same) of a preset or of one
        of your models (give exactly one). Its clock runs from now, whether anyone reads or not.

        ``speed`` is event-time seconds per second of wall clock (0.01–100,000; the service's default 1),
        ``disorder`` ``{"late_share", "max_delay_s", "duplicate_share"}``, ``sink`` ``{"type": "sse"}`` (the
        default) or ``{"type": "webhook", "url", "batch_max", "batch_ms"}``: a webhook stream's answer
        carries ``webhook_secret`` this once only.
        """
        if (preset is None) == (model is None):
            raise ValueError("give exactly one of preset and model")
        if n is not None and num_interactions is not None and n != num_interactions:
            raise ValueError("n and num_interactions are the same field: give one")
        count = n if n is not None else num_interactions
        if count is None:
            raise ValueError("n (the number of interactions) is required")
        body: dict[str, Any] = {"preset": preset} if model is None else {"model": model}
        body["num_interactions"] = count
        optional = {
            "profile": profile,
            "seed": seed,
            "scenario": None if scenario is None else dict(scenario),
            "engine_version": None if engine_version is None else str(engine_version),
            "population": population,
            "start_time": instant(start_time),
            "speed": speed,
            "disorder": None if disorder is None else dict(disorder),
            "sink": None if sink is None else dict(sink),
        }
        body.update({name: value for name, value in optional.items() if value is not None})
        # Not retried on a 429/503: a stream has no Idempotency-Key, and a second POST would start a second one.
        return cast(CreatedStream, self._transport.request("POST", "/v1/streams", body=body).json())

    def get(self, stream_id: str) -> Stream:
        """One stream of the account: its status and ``delivered`` so far."""
        return cast(Stream, self._transport.request("GET", _path(stream_id)).json())

    def list(self, *, limit: int | None = None, cursor: str | None = None) -> StreamList:
        """A page of the account's streams, newest first; pass its ``next_cursor`` as ``cursor`` for the next."""
        return cast(StreamList, self._transport.request("GET", "/v1/streams", query={"limit": limit, "cursor": cursor}).json())

    def cancel(self, stream_id: str) -> Stream:
        """Stops a stream (``cancelled``); an ended one is answered as it is."""
        return cast(Stream, self._transport.request("DELETE", _path(stream_id)).json())

    def events(self, stream_id: str, last_event_id: int | str | None = None, *, max_reconnects: int = 5) -> StreamEvents:
        """The stream's envelopes in delivery order, each when it is due, until the stream ends.

        ``last_event_id`` resumes after that position. A connection that breaks is opened again with
        ``Last-Event-ID`` set to the last position received, so nothing is missed or repeated; after
        ``max_reconnects`` breaks in a row with no event between them the last connection error is raised.
        """
        return StreamEvents(self._transport, stream_id, last_event_id, max_reconnects)


def _path(stream_id: str, suffix: str = "") -> str:
    return f"/v1/streams/{urllib.parse.quote(stream_id, safe='')}{suffix}"


@dataclass(frozen=True)
class _Message:
    event: str
    data: str
    last_event_id: str


_LINE_END = re.compile(r"[\r\n]")


class _EventStreamParser:
    """text/event-stream as the WHATWG HTML standard parses it (9.2.6): lines end with CRLF, LF or CR; a blank
    line dispatches the message; ``:`` starts a comment; ``data`` lines join with newlines; ``id`` persists
    across messages; a message the body ends in the middle of is never dispatched."""

    def __init__(self, last_event_id: str) -> None:
        self.last_event_id = last_event_id
        self.retry_ms: int | None = None
        self._reset()

    def _reset(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._pending = ""
        self._started = False
        self._event = ""
        self._data: list[str] = []
        self._id = self.last_event_id

    def restart(self) -> None:
        """A new connection: what was half received on the old one is dropped."""
        self._reset()

    def feed(self, chunk: bytes) -> list[_Message]:
        text = self._decoder.decode(chunk)
        if not self._started and text:
            self._started = True
            text = text.removeprefix("\ufeff")
        self._pending += text
        messages: list[_Message] = []
        start = 0
        while True:
            found = _LINE_END.search(self._pending, start)
            if found is None:
                break
            end = found.start()
            if self._pending[end] == "\r":
                if end + 1 == len(self._pending):
                    break  # a CR at the end may be the first half of a CRLF: wait for the next byte
                after = end + 2 if self._pending[end + 1] == "\n" else end + 1
            else:
                after = end + 1
            message = self._line(self._pending[start:end])
            if message is not None:
                messages.append(message)
            start = after
        self._pending = self._pending[start:]
        return messages

    def _line(self, line: str) -> _Message | None:
        if line == "":
            return self._dispatch()
        if line.startswith(":"):
            return None
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "event":
            self._event = value
        elif name == "data":
            self._data.append(value)
        elif name == "id" and "\0" not in value:
            self._id = value
        elif name == "retry" and value.isdigit():
            self.retry_ms = int(value)
        return None

    def _dispatch(self) -> _Message | None:
        self.last_event_id = self._id
        event, data = self._event or "message", self._data
        self._event, self._data = "", []
        if not data:
            return None
        return _Message(event, "\n".join(data), self.last_event_id)


class StreamEvents(Iterator[StreamEnvelope]):
    """A live stream's envelopes, one at a time, as they come due; the iteration ends after ``event: end``.

    ``stream`` is the Stream the service sent with its end (``None`` until then), ``last_event_id`` the
    position of the last envelope received (what a resume sends as ``Last-Event-ID``), ``reconnects`` how
    many times a broken connection was opened again. Use it in a ``with`` block (or call ``close()``) to let
    go of the connection when you stop early.
    """

    def __init__(self, transport: Transport, stream_id: str, last_event_id: int | str | None, max_reconnects: int) -> None:
        self._transport = transport
        self._path = _path(stream_id, "/events")
        self.stream_id = stream_id
        self.max_reconnects = max_reconnects
        self.stream: Stream | None = None
        self.reconnects = 0
        self._parser = _EventStreamParser("" if last_event_id is None else str(last_event_id))
        # The id of the last envelope handed out: the parser may have read further into a chunk (the
        # service writes the events due together), and a resume must go on after what the caller has.
        self._yielded_id = self._parser.last_event_id
        self._response: Response | None = None
        self._envelopes = self._read()

    @property
    def last_event_id(self) -> int | None:
        given = self._yielded_id
        return int(given) if given.isdigit() else None

    def __iter__(self) -> StreamEvents:
        return self

    def __next__(self) -> StreamEnvelope:
        return next(self._envelopes)

    def close(self) -> None:
        self._envelopes.close()
        if self._response is not None:
            self._response.close()

    def __enter__(self) -> StreamEvents:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None) -> None:
        self.close()

    def _read(self) -> Iterator[StreamEnvelope]:
        failures = 0
        while True:
            try:
                for message in self._messages():
                    if message.event == "end":
                        self.stream = cast(Stream, json.loads(message.data))
                        return
                    if message.event == "message":
                        failures = 0
                        self._yielded_id = message.last_event_id
                        yield cast(StreamEnvelope, json.loads(message.data))
                url = self._transport.url(self._path)
                broken: ApiConnectionError = IncompleteBodyError(url, "the event stream ended before its end event", received=self._received())
            except ApiConnectionError as error:  # IncompleteBodyError too: cut mid-body
                broken = error
            finally:
                if self._response is not None:
                    self._response.close()
            failures += 1
            if failures > self.max_reconnects:
                raise broken
            self.reconnects += 1
            base = FIRST_WAIT if self._parser.retry_ms is None else self._parser.retry_ms / 1000
            self._transport.sleep(min(MAX_WAIT, base * 2 ** (failures - 1)))

    def _received(self) -> int:
        return 0 if self._response is None else self._response.received

    def _messages(self) -> Iterator[_Message]:
        self._parser.restart()
        headers = {"Accept": EVENT_STREAM}
        if self._parser.last_event_id:
            headers["Last-Event-ID"] = self._parser.last_event_id
        self._response = self._transport.request("GET", self._path, headers=headers)
        if media_type_of(self._response) != EVENT_STREAM:
            raise unexpected_media_type(self._response, EVENT_STREAM)
        for chunk in self._response.chunks():
            yield from self._parser.feed(chunk)

