"""API keys of the caller's account (`client.keys`)."""

from __future__ import annotations

import builtins
import urllib.parse
import uuid
from typing import cast

from ._transport import Transport
from .types import ApiKey, ApiKeyCreatedOrReplayed, ApiKeyRevoked, ApiKeyRolled

__all__ = ["ApiKeys"]


class ApiKeys:
    def __init__(self, transport: Transport) -> None:
        self._transport = transport

    def list(self) -> builtins.list[ApiKey]:
        """Every key of the account, active and revoked (metadata only: secrets are never shown again)."""
        return cast("list[ApiKey]", self._transport.request("GET", "/v1/api-keys").json())

    def create(self, name: str, *, idempotency_key: str | None = None) -> ApiKeyCreatedOrReplayed:
        """A new key; its secret (``key``) is in this answer only. A replay of the same ``idempotency_key``
        answers the same key without ``key``."""
        headers = {"Idempotency-Key": idempotency_key or str(uuid.uuid4())}
        return cast(ApiKeyCreatedOrReplayed, self._transport.request("POST", "/v1/api-keys", body={"name": name}, headers=headers).json())

    def revoke(self, key_id: str) -> ApiKeyRevoked:
        """Revokes a key at once (revoking a revoked key of one's own answers the same)."""
        return cast(ApiKeyRevoked, self._transport.request("DELETE", f"/v1/api-keys/{urllib.parse.quote(key_id, safe='')}").json())

    def roll(self, key_id: str, *, expires_in: int | None = None, idempotency_key: str | None = None) -> ApiKeyRolled:
        """A new key of the same name; the old one works ``expires_in`` more seconds (service default 86400, 0: revoked now)."""
        body = {} if expires_in is None else {"expires_in": expires_in}
        headers = {"Idempotency-Key": idempotency_key or str(uuid.uuid4())}
        path = f"/v1/api-keys/{urllib.parse.quote(key_id, safe='')}/roll"
        return cast(ApiKeyRolled, self._transport.request("POST", path, body=body, headers=headers).json())
