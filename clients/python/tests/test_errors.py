"""Every documented error code the client can meet raises bss.ApiError with its status, code and request id."""

from __future__ import annotations

import re
import unittest
import uuid

import bss
from support import API_URL, insert_runs, new_account

UUID = re.compile(r"^[0-9a-f-]{36}$")


class ErrorCodesTest(unittest.TestCase):
    def assert_refusal(self, call: object, status: int, code: str) -> bss.ApiError:
        with self.assertRaises(bss.ApiError) as caught:
            call()  # type: ignore[operator]
        error = caught.exception
        self.assertEqual((error.status, error.code), (status, code), error)
        self.assertRegex(error.request_id or "", UUID)
        self.assertEqual(error.request_id, error.headers.get("X-Request-ID"))
        self.assertEqual(error.details["code"], code)
        self.assertTrue(error.message)
        return error

    def test_credentials(self) -> None:
        self.assert_refusal(lambda: bss.Client(API_URL, "").usage(), 401, "authentication_required")
        self.assert_refusal(lambda: bss.Client(API_URL, "bs_live_" + "x" * 32).usage(), 401, "invalid_credentials")
        disabled = new_account("pro", active=False)
        self.assert_refusal(lambda: disabled.client().simulate("finance", 5), 403, "account_disabled")

    def test_simulation_limits(self) -> None:
        free = new_account("free").client()
        error = self.assert_refusal(lambda: free.simulate("finance", 5000), 403, "interactions_per_request_exceeded")
        self.assertEqual((error.details["limit"], error.details["requested"]), (1000, 5000))
        no_requests = new_account(limits={"monthly_requests": 0}).client()
        self.assert_refusal(lambda: no_requests.simulate("finance", 5), 403, "monthly_request_quota_exceeded")
        few_interactions = new_account(limits={"monthly_interactions": 10}).client()
        error = self.assert_refusal(lambda: few_interactions.simulate("finance", 11), 403, "monthly_interaction_quota_exceeded")
        self.assertEqual(error.details["requested"], 11)

    def test_rate_limit_when_retries_are_off(self) -> None:
        free = new_account("free")
        client = free.client(max_retries=0)
        for _ in range(5):
            client.simulate("finance", 1)
        error = self.assert_refusal(lambda: client.simulate("finance", 1), 429, "rate_limit_exceeded")
        self.assertEqual(error.details["limit"], 5)
        self.assertEqual(str(error.retry_after), error.headers.get("Retry-After"))

    def test_request_bodies(self) -> None:
        client = new_account("pro").client()
        error = self.assert_refusal(lambda: client.simulate("finance", 5, profile="nope"), 422, "validation_failed")
        self.assertEqual(error.details["issues"][0]["path"], "profile")
        self.assert_refusal(lambda: client.simulate("weather", 5), 422, "validation_failed")
        # A scenario is passed through as given: one over the 16 KiB body limit is the service's to refuse.
        huge = {"events": [{"type": "x" * 20_000, "sequence": 1, "at_step": 1, "duration": 1}]}
        self.assert_refusal(lambda: client.simulate("finance", 5, scenario=huge), 413, "payload_too_large")
        self.assert_refusal(lambda: client.simulate("finance", 5, idempotency_key="has spaces"), 400, "invalid_idempotency_key")

    def test_idempotency_key_reused_with_another_body(self) -> None:
        client = new_account("pro").client()
        key = str(uuid.uuid4())
        client.simulate("finance", 5, seed=1, idempotency_key=key)
        self.assert_refusal(lambda: client.simulate("finance", 6, seed=1, idempotency_key=key), 422, "idempotency_key_reused")

    def test_unknown_things(self) -> None:
        client = new_account("pro").client()
        self.assert_refusal(lambda: client.preset("weather"), 404, "preset_not_found")
        self.assert_refusal(lambda: client.keys.revoke(str(uuid.uuid4())), 404, "api_key_not_found")
        self.assert_refusal(lambda: client.run(str(uuid.uuid4())), 404, "simulation_not_found")
        self.assert_refusal(lambda: client.history(page_size=500).__next__(), 422, "validation_failed")
        # A client pointed below the API's root meets the unknown route.
        self.assert_refusal(lambda: bss.Client(API_URL + "/nowhere", "").presets(), 404, "not_found")

    def test_runs_that_cannot_be_replayed(self) -> None:
        account = new_account("pro")
        [failed] = insert_runs(account, status="failed")
        error = self.assert_refusal(lambda: account.client().replay(failed), 409, "simulation_not_completed")
        self.assertEqual(error.details.get("status"), "failed")

    def test_keys(self) -> None:
        free = new_account("free").client()
        self.assert_refusal(lambda: free.keys.create("second"), 403, "api_key_limit_reached")
        [own] = free.keys.list()
        free.keys.roll(own["id"], expires_in=60)
        self.assert_refusal(lambda: free.keys.roll(own["id"]), 409, "api_key_not_rollable")

    def test_concurrency_and_idempotency_key_in_use(self) -> None:
        # One slot; a run whose client reads nothing holds it (a million records fill every buffer).
        account = new_account(limits={"max_concurrent_simulations": 1})
        client = account.client(max_retries=0)
        key = str(uuid.uuid4())
        with client.iter_records("finance", 1_000_000, seed=3, idempotency_key=key) as held:
            next(held)
            self.assert_refusal(lambda: client.iter_records("finance", 1_000_000, seed=3, idempotency_key=key), 409, "idempotency_key_in_use")
            error = self.assert_refusal(lambda: client.simulate("finance", 5), 429, "concurrency_limit_exceeded")
            self.assertEqual(error.details["limit"], 1)


if __name__ == "__main__":
    unittest.main()
