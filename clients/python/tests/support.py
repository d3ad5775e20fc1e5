"""What the client's tests share: the service under test, its fixtures, and a fake service of their own.

The tests run against the real service that `test/python/client.test.ts` starts (``BSS_API_URL``,
``BSS_API_KEY``), and make accounts through its fixture server (``BSS_TEST_FIXTURES_URL``).
"""

from __future__ import annotations

import json
import os
import urllib.request
from dataclasses import dataclass
from typing import Any

import bss

API_URL = os.environ.get("BSS_API_URL", "")
FIXTURES_URL = os.environ.get("BSS_TEST_FIXTURES_URL", "")


def _post_fixture(path: str, body: dict[str, Any]) -> dict[str, Any]:
    if not FIXTURES_URL:
        raise RuntimeError("BSS_TEST_FIXTURES_URL is not set: run these tests through `npx ava test/python/client.test.ts`")
    request = urllib.request.Request(
        f"{FIXTURES_URL}{path}", data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


@dataclass(frozen=True)
class Account:
    account_id: str
    key: str

    def client(self, **options: Any) -> bss.Client:
        return bss.Client(API_URL, self.key, **options)


def new_account(plan: str = "pro", *, limits: dict[str, int] | None = None, active: bool = True) -> Account:
    """A fresh account (so no test shares a rate window or a quota) with one API key."""
    body: dict[str, Any] = {"plan": plan, "active": active}
    if limits is not None:
        body["limits"] = limits
    made = _post_fixture("/accounts", body)
    return Account(made["account_id"], made["key"])


def insert_runs(account: Account, *, count: int = 1, status: str = "completed", seconds_ago: float | None = None) -> list[str]:
    """Ledger rows as past runs leave them; rows of the last minute count in the account's rate window."""
    body: dict[str, Any] = {"account_id": account.account_id, "count": count, "status": status}
    if seconds_ago is not None:
        body["seconds_ago"] = seconds_ago
    return _post_fixture("/runs", body)["ids"]


def raw_get(path: str, key: str, accept: str) -> tuple[int, dict[str, str], bytes]:
    """The API's answer read with plain urllib, the yardstick for byte equality."""
    request = urllib.request.Request(f"{API_URL}{path}", headers={"Authorization": f"Bearer {key}", "Accept": accept})
    with urllib.request.urlopen(request, timeout=120) as response:
        return response.status, dict(response.headers.items()), response.read()
