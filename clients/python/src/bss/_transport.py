"""HTTP for the client: urllib, retries after `Retry-After`, and bodies that must arrive whole."""

from __future__ import annotations

import email.utils
import http.client
import json
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ._errors import ApiConnectionError, ApiError, IncompleteBodyError

__all__ = ["Response", "RetryNotice", "Transport"]

RETRIED_STATUSES = frozenset({429, 503})
CHUNK_SIZE = 64 * 1024


@dataclass(frozen=True)
class RetryNotice:
    """Told to ``on_retry`` before each wait, so a program can say why it pauses."""

    retry: int
    """1 for the first retry."""
    max_retries: int
    wait_seconds: float
    status: int
    code: str | None
    """The envelope's ``details.code``: ``rate_limit_exceeded``, ``concurrency_limit_exceeded``, ``service_unavailable``."""
    request_id: str | None


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """`Retry-After` in seconds: delta-seconds or an HTTP date; None when absent or unreadable."""
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, moment.timestamp() - (time.time() if now is None else now))


class Response:
    """An answer whose status is a success; its body is read once, through one of the methods below."""

    def __init__(self, raw: http.client.HTTPResponse, url: str) -> None:
        self.raw = raw
        self.url = url
        self.status: int = raw.status
        self.headers: Mapping[str, str] = _header_map(raw)
        length = raw.headers.get("Content-Length")
        self.content_length: int | None = int(length) if length is not None and length.isdigit() else None
        self.received = 0

    def chunks(self, size: int = CHUNK_SIZE) -> Iterator[bytes]:
        """The body's bytes as they arrive; raises IncompleteBodyError when it ends before its end."""
        try:
            while True:
                chunk = self.raw.read1(size)
                if not chunk:
                    break
                self.received += len(chunk)
                yield chunk
        except (http.client.IncompleteRead, OSError, http.client.HTTPException) as error:
            self.close()
            raise IncompleteBodyError(self.url, _describe(error), received=self.received, expected=self.content_length) from error
        # http.client reads a short Content-Length body as a quiet end of file: that is checked here.
        if self.content_length is not None and self.received < self.content_length:
            self.close()
            raise IncompleteBodyError(
                self.url,
                f"{self.received} of {self.content_length} bytes arrived",
                received=self.received,
                expected=self.content_length,
            )
        self.close()

    def read(self) -> bytes:
        return b"".join(self.chunks())

    def json(self) -> Any:
        return json.loads(self.read().decode("utf-8"))

    def close(self) -> None:
        self.raw.close()


def _header_map(raw: http.client.HTTPResponse) -> Mapping[str, str]:
    # HTTPMessage is case-insensitive already; a plain dict of it would not be.
    return raw.headers  # type: ignore[return-value]


def _describe(error: BaseException) -> str:
    if isinstance(error, urllib.error.URLError):
        return str(error.reason)
    if isinstance(error, http.client.IncompleteRead):
        return "the connection closed before the body's end"
    return str(error) or type(error).__name__


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A POST is never turned into a GET elsewhere; the API answers what it means without redirects."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


class Transport:
    """Sends requests to one service with one key; every failure becomes ApiError or ApiConnectionError."""

    def __init__(
        self,
        base_url: str,
        api_key: str | None,
        *,
        max_retries: int,
        max_retry_wait: float,
        timeout: float | None,
        on_retry: Callable[[RetryNotice], None] | None,
        user_agent: str,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.max_retries = max_retries
        self.max_retry_wait = max_retry_wait
        self.timeout = timeout
        self.on_retry = on_retry
        self.user_agent = user_agent
        self.sleep = sleep
        self.opener = urllib.request.build_opener(_NoRedirect())

    def url(self, path: str, query: Mapping[str, object] | None = None) -> str:
        pairs = {name: str(value) for name, value in (query or {}).items() if value is not None}
        return f"{self.base_url}{path}" + (f"?{urllib.parse.urlencode(pairs)}" if pairs else "")

    def request(
        self,
        method: str,
        path: str,
        *,
        query: Mapping[str, object] | None = None,
        body: object = None,
        headers: Mapping[str, str] | None = None,
    ) -> Response:
        """Sends, waits out 429/503 per `Retry-After` at most `max_retries` times, and raises on an error status.

        A POST is retried only with an `Idempotency-Key`: the service then answers a repeat with the first
        outcome instead of running it twice.
        """
        url = self.url(path, query)
        data = None if body is None else json.dumps(body, separators=(",", ":")).encode("utf-8")
        sent = {"User-Agent": self.user_agent, "Accept": "application/json", **(headers or {})}
        if data is not None:
            sent["Content-Type"] = "application/json"
        if self.api_key:
            sent["Authorization"] = f"Bearer {self.api_key}"
        retryable = method != "POST" or "Idempotency-Key" in sent
        retry = 0
        while True:
            status, raw = self._send(urllib.request.Request(url, data=data, headers=sent, method=method), url)
            if status < 400:
                return Response(raw, url)
            error_body = self._error_body(raw, url)
            error = ApiError.from_body(status, raw.reason, error_body, _header_map(raw))
            wait = parse_retry_after(raw.headers.get("Retry-After"))
            if not retryable or retry >= self.max_retries or status not in RETRIED_STATUSES or wait is None or wait > self.max_retry_wait:
                raise error
            retry += 1
            if self.on_retry is not None:
                self.on_retry(RetryNotice(retry, self.max_retries, wait, status, error.code, error.request_id))
            self.sleep(wait)

    def _send(self, request: urllib.request.Request, url: str) -> tuple[int, http.client.HTTPResponse]:
        try:
            raw = self.opener.open(request, timeout=self.timeout)
        except urllib.error.HTTPError as error:
            # urllib raises for 4xx/5xx (and for the 3xx it was told not to follow); the error is the
            # response. Keep the error itself: its file closes when the error object is collected.
            return error.code, error  # type: ignore[return-value]
        except (urllib.error.URLError, OSError, http.client.HTTPException, socket.timeout) as error:
            raise ApiConnectionError(url, _describe(error)) from error
        return raw.status, raw

    def _error_body(self, raw: http.client.HTTPResponse, url: str) -> bytes:
        try:
            return raw.read()
        except (http.client.HTTPException, OSError):
            # An envelope cut short still says which status it was: the status decides, not the body.
            return b""
        finally:
            raw.close()
