"""The client's exceptions: one for the API's refusals, one for a connection that failed."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal

__all__ = ["ApiConnectionError", "ApiError", "BssError", "IncompleteBodyError"]


class BssError(Exception):
    """Every error this client raises."""


class ApiError(BssError):
    """An answer of the API that is not a success, from the error envelope.

    Branch on ``code`` (stable, snake_case, e.g. ``rate_limit_exceeded``), never on ``message``; quote
    ``request_id`` when reporting a problem.
    """

    status: int
    code: str
    message: str
    request_id: str | None
    details: Mapping[str, Any]
    headers: Mapping[str, str]

    def __init__(
        self,
        message: str,
        *,
        status: int,
        code: str,
        request_id: str | None = None,
        details: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = code
        self.request_id = request_id
        self.details = dict(details or {})
        self.headers = dict(headers or {})

    @property
    def retry_after(self) -> int | None:
        """Seconds the service asked to wait (429, 503), when it said."""
        value = self.details.get("retry_after")
        return value if isinstance(value, int) else None

    def __str__(self) -> str:
        suffix = f", request {self.request_id}" if self.request_id else ""
        return f"{self.message} ({self.status} {self.code}{suffix})"

    def __repr__(self) -> str:
        return f"ApiError(status={self.status!r}, code={self.code!r}, request_id={self.request_id!r}, message={self.message!r})"

    @classmethod
    def from_body(cls, status: int, reason: str, body: bytes, headers: Mapping[str, str]) -> ApiError:
        """From an error response; a body that is not the envelope (a proxy's page) is `unexpected_response`."""
        header_id = headers.get("X-Request-ID")
        try:
            envelope = json.loads(body.decode("utf-8")).get("error")
        except (ValueError, UnicodeDecodeError, AttributeError):
            envelope = None
        if isinstance(envelope, dict):
            details = envelope.get("details")
            message = envelope.get("message")
            if isinstance(details, dict) and isinstance(details.get("code"), str) and isinstance(message, str):
                request_id = envelope.get("request_id")
                return cls(
                    message,
                    status=status,
                    code=details["code"],
                    request_id=request_id if isinstance(request_id, str) else header_id,
                    details=details,
                    headers=headers,
                )
        return cls(
            f"unexpected HTTP {status} {reason}".strip(),
            status=status,
            code="unexpected_response",
            request_id=header_id,
            headers=headers,
        )


class ApiConnectionError(BssError):
    """The service could not be reached, or the connection broke before a whole answer arrived."""

    url: str
    kind: Literal["unreachable", "cut_short"]

    def __init__(self, url: str, reason: object, kind: Literal["unreachable", "cut_short"] = "unreachable") -> None:
        verb = "cannot reach" if kind == "unreachable" else "the body was cut short from"
        super().__init__(f"{verb} {url}: {reason}")
        self.url = url
        self.kind = kind


class IncompleteBodyError(ApiConnectionError):
    """The body ended before its end: no terminating chunk, or fewer bytes than `Content-Length`.

    The service ends a run that fails after its first bytes this way, so a partial body is never taken
    for a whole one. ``received`` counts the bytes that did arrive.
    """

    received: int
    expected: int | None

    def __init__(self, url: str, reason: object, *, received: int, expected: int | None = None) -> None:
        super().__init__(url, reason, "cut_short")
        self.received = received
        self.expected = expected
