"""A tiny HTTP server of the tests' own, for what the real service does not do on demand: answers cut
short, 503s, `Retry-After` values, and byte ranges served on a script."""

from __future__ import annotations

import re
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


Reply = Callable[["Handler", Seen], None]
# Record streams carry the run's identity, as the service's do.
SIMULATION_ID = "Simulation-Id: 0b5f3a9e-0000-4000-8000-000000000000\r\n"


@dataclass
class FakeService:
    """Answers each request with the next reply of ``script`` (the last one repeats)."""

    script: list[Reply]
    seen: list[Seen] = field(default_factory=list)

    def __post_init__(self) -> None:
        fake = self

        class BoundHandler(Handler):
            service = fake

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), BoundHandler)
        # A short poll keeps shutdown() quick (it waits for the loop to notice).
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_port}"

    def __enter__(self) -> FakeService:
        self.thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()

    def next_reply(self) -> Reply:
        index = min(len(self.seen) - 1, len(self.script) - 1)
        return self.script[index]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    service: FakeService

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002  (the base class's name)
        pass

    def _handle(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        seen = Seen(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, self.rfile.read(length))
        self.service.seen.append(seen)
        self.service.next_reply()(self, seen)
        self.close_connection = True

    do_GET = do_POST = do_DELETE = _handle

    def raw(self, data: bytes) -> None:
        """Bytes straight onto the socket, then the connection ends (however much of a body was promised)."""
        self.wfile.write(data)
        self.wfile.flush()
        self.connection.shutdown(socket.SHUT_WR)


def envelope(status: int, code: str, retry_after: str | None = None) -> Reply:
    def reply(handler: Handler, seen: Seen) -> None:
        body = (
            f'{{"error":{{"message":"refused","status_code":{status},"details":{{"code":"{code}"}},"request_id":"req-{len(handler.service.seen)}"}}}}'
        ).encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(body)))
        handler.send_header("X-Request-ID", f"req-{len(handler.service.seen)}")
        if retry_after is not None:
            handler.send_header("Retry-After", retry_after)
        handler.send_header("Connection", "close")
        handler.end_headers()
        handler.wfile.write(body)

    return reply


def body(data: bytes, content_type: str = "application/json", headers: dict[str, str] | None = None) -> Reply:
    def reply(handler: Handler, seen: Seen) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", content_type)
        handler.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            handler.send_header(name, value)
        handler.send_header("Connection", "close")
        handler.end_headers()
        handler.wfile.write(data)

    return reply


def chunked_without_end(content_type: str, chunks: list[bytes]) -> Reply:
    """A chunked body whose connection ends before the terminating zero-length chunk."""

    def reply(handler: Handler, seen: Seen) -> None:
        head = f"HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\n{SIMULATION_ID}Transfer-Encoding: chunked\r\n\r\n".encode()
        handler.raw(head + b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for chunk in chunks))

    return reply


def shorter_than_length(content_type: str, data: bytes, promised: int) -> Reply:
    """`Content-Length: promised` and fewer bytes, then the connection ends."""

    def reply(handler: Handler, seen: Seen) -> None:
        handler.raw(f"HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\n{SIMULATION_ID}Content-Length: {promised}\r\n\r\n".encode() + data)

    return reply


RANGE = re.compile(r"bytes=(\d+)-(\d*)")


def ranged(data: bytes, content_type: str, etag: str | None, cut_after: int | None = None, honour_ranges: bool = True) -> Reply:
    """Serves ``data`` as the service's records endpoint does: `Accept-Ranges`, a strong ETag, `Range` →
    206 with `Content-Range`, `If-Range` with another tag → 200 whole. ``cut_after`` ends the connection
    after that many bytes of the answer's body (its promised length unmet)."""

    def reply(handler: Handler, seen: Seen) -> None:
        start, end = 0, len(data) - 1
        status = 200
        wanted = RANGE.fullmatch(seen.headers.get("range", ""))
        if_range = seen.headers.get("if-range")
        if honour_ranges and wanted and (if_range is None or if_range == etag):
            start = int(wanted.group(1))
            end = int(wanted.group(2)) if wanted.group(2) else end
            status = 206
        part = data[start : end + 1]
        head = [f"HTTP/1.1 {status} {'Partial Content' if status == 206 else 'OK'}", f"Content-Type: {content_type}", f"Content-Length: {len(part)}"]
        head.append("Accept-Ranges: bytes")
        if etag is not None:
            head.append(f"ETag: {etag}")
        if status == 206:
            head.append(f"Content-Range: bytes {start}-{end}/{len(data)}")
        sent = part if cut_after is None else part[:cut_after]
        handler.raw(("\r\n".join(head) + "\r\n\r\n").encode() + sent)

    return reply
