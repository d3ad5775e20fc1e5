"""client.keys lists, creates, revokes and rolls API keys."""

from __future__ import annotations

import unittest
import uuid
from typing import cast

import bss
from support import API_URL, new_account


class KeysTest(unittest.TestCase):
    def test_create_list_revoke(self) -> None:
        client = new_account("pro").client()
        created = cast(bss.ApiKeyCreated, client.keys.create("notebook"))
        self.assertRegex(created["key"], r"^bs_live_[A-Za-z0-9]{32}$")
        self.assertTrue(created["key"].startswith(created["key_prefix"]))
        listed = {key["id"]: key for key in client.keys.list()}
        self.assertTrue(listed[created["id"]]["is_active"])
        self.assertNotIn("key", listed[created["id"]])
        self.assertEqual(bss.Client(API_URL, created["key"]).account()["plan"], "pro")
        self.assertEqual(client.keys.revoke(created["id"]), {"status": "revoked", "id": created["id"]})
        self.assertEqual(client.keys.revoke(created["id"]), {"status": "revoked", "id": created["id"]})
        with self.assertRaises(bss.ApiError) as caught:
            bss.Client(API_URL, created["key"]).account()
        self.assertEqual(caught.exception.code, "invalid_credentials")

    def test_a_repeated_create_answers_the_same_key_without_its_secret(self) -> None:
        client = new_account("pro").client()
        key = str(uuid.uuid4())
        first = client.keys.create("ci", idempotency_key=key)
        again = client.keys.create("ci", idempotency_key=key)
        self.assertIn("key", first)
        self.assertNotIn("key", again)
        self.assertEqual({name: again[name] for name in ("id", "name", "key_prefix", "created_at")},  # type: ignore[literal-required]
                         {name: first[name] for name in ("id", "name", "key_prefix", "created_at")})  # type: ignore[literal-required]
        self.assertEqual(sum(1 for listed in client.keys.list() if listed["name"] == "ci"), 1)

    def test_roll_replaces_a_key_and_revokes_the_old_one_when_told(self) -> None:
        account = new_account("pro")
        client = account.client()
        [old] = client.keys.list()
        rolled = client.keys.roll(old["id"], expires_in=0)
        self.assertEqual(rolled["name"], old["name"])
        self.assertNotEqual(rolled["id"], old["id"])
        self.assertTrue(rolled["previous_key_expires_at"])
        new_client = bss.Client(API_URL, rolled["key"])
        self.assertEqual({key["id"]: key["is_active"] for key in new_client.keys.list()}, {old["id"]: False, rolled["id"]: True})
        with self.assertRaises(bss.ApiError) as caught:
            client.usage()
        self.assertEqual(caught.exception.code, "invalid_credentials")


if __name__ == "__main__":
    unittest.main()
