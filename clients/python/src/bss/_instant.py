"""start_time as the service reads it, for runs and streams alike."""

from __future__ import annotations

from datetime import datetime, timezone

__all__ = ["instant"]


def instant(value: str | datetime | None) -> str | None:
    """ISO 8601 UTC with ``Z`` (an aware datetime is converted; a string is sent as given)."""
    if value is None or isinstance(value, str):
        return value
    if value.tzinfo is None:
        raise ValueError("start_time must be timezone-aware (UTC), or an ISO 8601 string ending in Z")
    return value.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
