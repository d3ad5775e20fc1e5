"""429 and 503 are retried after Retry-After, at most 3 times; nothing else is."""

from __future__ import annotations

import re
import socket
import unittest

import bss
from fakeservice import FakeService, Handler, Seen, body, envelope
from support import insert_runs, new_account

UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
OK = body(b'{"simulation_id":"s","preset":"finance","profile":"p","seed":1,"num_interactions":1,"data":[],"metadata":{}}')


class RealLimiterTest(unittest.TestCase):
    def test_a_rate_limited_simulation_is_retried_after_retry_after_and_succeeds(self) -> None:
        # A free account (5 requests a minute) whose five runs were admitted 56 s ago: its window is
        # full for about four more seconds, so the real limiter answers 429 with a short Retry-After.
        account = new_account("free")
        insert_runs(account, count=5, seconds_ago=56)
        notices: list[bss.RetryNotice] = []
        client = account.client(on_retry=notices.append)
        result = client.simulate("finance", 10, seed=5)
        self.assertEqual(len(result.records), 10)
        self.assertGreaterEqual(len(notices), 1)
        self.assertLessEqual(len(notices), 3)
        first = notices[0]
        self.assertEqual((first.retry, first.max_retries, first.status, first.code), (1, 3, 429, "rate_limit_exceeded"))
        self.assertGreaterEqual(first.wait_seconds, 1)
        self.assertLessEqual(first.wait_seconds, 5)
        self.assertTrue(first.request_id)
        usage = client.usage()["usage"]
        self.assertEqual(usage["requests"], 6, "the retries cost one request, the five earlier runs the rest")


class RetryPolicyTest(unittest.TestCase):
    def test_at_most_three_retries_then_the_error(self) -> None:
        with FakeService([envelope(503, "service_unavailable", retry_after="0")]) as fake:
            notices: list[bss.RetryNotice] = []
            client = bss.Client(fake.url, "bs_live_test", on_retry=notices.append)
            with self.assertRaises(bss.ApiError) as caught:
                client.usage()
            self.assertEqual((caught.exception.status, caught.exception.code), (503, "service_unavailable"))
            self.assertEqual(len(fake.seen), 4)
            self.assertEqual([notice.retry for notice in notices], [1, 2, 3])

    def test_a_503_then_success(self) -> None:
        with FakeService([envelope(503, "service_unavailable", retry_after="0"), envelope(429, "concurrency_limit_exceeded", retry_after="0"), OK]) as fake:
            result = bss.Client(fake.url, "bs_live_test").simulate("finance", 1)
            self.assertEqual(result.simulation_id, "s")
            keys = {seen.headers["idempotency-key"] for seen in fake.seen}
            self.assertEqual(len(keys), 1, "every attempt of one call carries the same Idempotency-Key")

    def test_the_wait_is_the_services_retry_after(self) -> None:
        with FakeService([envelope(429, "rate_limit_exceeded", retry_after="1"), OK]) as fake:
            waits: list[float] = []
            client = bss.Client(fake.url, "bs_live_test")
            client._transport.sleep = waits.append  # the wait itself is the clock's business, not this test's
            client.simulate("finance", 1)
            self.assertEqual(waits, [1.0])

    def test_waits_longer_than_max_retry_wait_are_not_waited_for(self) -> None:
        with FakeService([envelope(429, "rate_limit_exceeded", retry_after="3600")]) as fake:
            with self.assertRaises(bss.ApiError) as caught:
                bss.Client(fake.url, "bs_live_test").simulate("finance", 1)
            self.assertEqual(caught.exception.code, "rate_limit_exceeded")
            self.assertEqual(len(fake.seen), 1)

    def test_other_errors_are_not_retried(self) -> None:
        with FakeService([envelope(409, "idempotency_key_in_use", retry_after="0"), envelope(500, "internal_error")]) as fake:
            client = bss.Client(fake.url, "bs_live_test")
            with self.assertRaises(bss.ApiError) as caught:
                client.simulate("finance", 1)
            self.assertEqual(caught.exception.code, "idempotency_key_in_use")
            with self.assertRaises(bss.ApiError) as caught:
                client.usage()
            self.assertEqual((caught.exception.status, caught.exception.code), (500, "internal_error"))
            self.assertEqual(len(fake.seen), 2)

    def test_a_body_that_is_not_the_envelope_is_unexpected_response(self) -> None:
        def proxy_page(handler: Handler, seen: Seen) -> None:
            handler.raw(b"HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/html\r\nContent-Length: 9\r\nX-Request-ID: r1\r\n\r\n<html/>\r\n")

        with FakeService([proxy_page]) as fake:
            with self.assertRaises(bss.ApiError) as caught:
                bss.Client(fake.url, "").presets()
            self.assertEqual((caught.exception.status, caught.exception.code, caught.exception.request_id), (502, "unexpected_response", "r1"))

    def test_simulate_always_sends_an_idempotency_key(self) -> None:
        with FakeService([OK]) as fake:
            client = bss.Client(fake.url, "bs_live_test")
            client.simulate("finance", 1)
            client.simulate("finance", 1)
            client.simulate("finance", 1, idempotency_key="nightly-2026-11-23")
            keys = [seen.headers.get("idempotency-key", "") for seen in fake.seen]
            self.assertRegex(keys[0], UUID)
            self.assertRegex(keys[1], UUID)
            self.assertNotEqual(keys[0], keys[1])
            self.assertEqual(keys[2], "nightly-2026-11-23")
            self.assertEqual(fake.seen[0].headers["authorization"], "Bearer bs_live_test")


class ConnectionTest(unittest.TestCase):
    def test_an_unreachable_service_is_an_api_connection_error_naming_the_url(self) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            url = f"http://127.0.0.1:{probe.getsockname()[1]}"
        with self.assertRaises(bss.ApiConnectionError) as caught:
            bss.Client(url, "").presets()
        self.assertEqual(caught.exception.kind, "unreachable")
        self.assertTrue(str(caught.exception).startswith(f"cannot reach {url}/v1/presets"))
        self.assertNotIsInstance(caught.exception, bss.ApiError)


if __name__ == "__main__":
    unittest.main()
