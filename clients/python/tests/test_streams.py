"""iter_records streams NDJSON records one at a time; a body cut short is an error, never a short result."""

from __future__ import annotations

import json
import tracemalloc
import unittest

import bss
from fakeservice import FakeService, chunked_without_end, shorter_than_length
from support import new_account

NDJSON = "application/x-ndjson"


class StreamTest(unittest.TestCase):
    def test_a_hundred_thousand_records_stream_in_bounded_memory(self) -> None:
        client = new_account("enterprise").client()
        tracemalloc.start()
        try:
            count = 0
            last_id = 0
            with client.iter_records("finance", 100_000, seed=9) as stream:
                for record in stream:
                    count += 1
                    last_id = int(record["interaction_id"])  # type: ignore[arg-type]
                received = stream.bytes_received
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        self.assertEqual((count, last_id), (100_000, 100_000))
        # The body is about 12 MB, and its records as Python dicts over 50 MB; the stream holds
        # one read buffer (64 KiB) and one record at a time.
        self.assertGreater(received, 5_000_000)
        self.assertLess(peak, 2 * 1024 * 1024, f"peak {peak} bytes traced while streaming {received} bytes")

    def test_streamed_records_are_the_runs_records_and_the_headers_its_identity(self) -> None:
        client = new_account("pro").client()
        whole = client.simulate("healthcare", 300, seed=21, profile="critical_care")
        with client.iter_records("healthcare", 300, seed=21, profile="critical_care") as stream:
            self.assertEqual((stream.preset, stream.profile, stream.seed), ("healthcare", "critical_care", 21))
            self.assertEqual(stream.engine_version, whole.metadata["service_version"])
            self.assertNotEqual(stream.simulation_id, whole.simulation_id)
            self.assertEqual(list(stream), whole.records)

    def test_the_alias_streams_the_canonical_preset(self) -> None:
        with new_account("pro").client().iter_records("mobile", 3, seed=2) as stream:
            self.assertEqual(stream.preset, "mobile_app")
            self.assertEqual(len(list(stream)), 3)

    def test_a_chunked_body_without_its_last_chunk_raises(self) -> None:
        lines = [json.dumps({"sequence_id": 1, "interaction_id": i, "state": "Stable"}).encode() + b"\n" for i in range(1, 4)]
        with FakeService([chunked_without_end(NDJSON, lines)]) as fake:
            stream = bss.Client(fake.url, "k").iter_records("finance", 10)
            received = []
            with self.assertRaises(bss.IncompleteBodyError) as caught:
                for record in stream:
                    received.append(record)
            self.assertEqual(len(received), 3, "the records that did arrive were given before the error")
            self.assertEqual(caught.exception.kind, "cut_short")
            self.assertIsInstance(caught.exception, bss.ApiConnectionError)

    def test_a_body_shorter_than_its_content_length_raises(self) -> None:
        data = b'{"sequence_id":1,"interaction_id":1,"state":"Stable"}\n'
        with FakeService([shorter_than_length(NDJSON, data, promised=len(data) + 500)]) as fake:
            with self.assertRaises(bss.IncompleteBodyError) as caught:
                list(bss.Client(fake.url, "k").iter_records("finance", 10))
            self.assertEqual((caught.exception.received, caught.exception.expected), (len(data), len(data) + 500))

    def test_a_json_result_cut_short_raises_instead_of_parsing_what_came(self) -> None:
        with FakeService([chunked_without_end("application/json", [b'{"simulation_id":"s","data":[{"a":1}', b"]}"])]) as fake:
            with self.assertRaises(bss.IncompleteBodyError):
                bss.Client(fake.url, "k").simulate("finance", 10)
        with FakeService([shorter_than_length("application/json", b'{"a":1}', promised=100)]) as fake:
            with self.assertRaises(bss.IncompleteBodyError):
                bss.Client(fake.url, "k").usage()

    def test_an_answer_in_another_format_is_refused(self) -> None:
        from fakeservice import body

        with FakeService([body(b'{"simulation_id":"s"}', "application/json")]) as fake:
            with self.assertRaises(bss.ApiError) as caught:
                bss.Client(fake.url, "k").iter_records("finance", 10)
            self.assertEqual(caught.exception.code, "unexpected_response")


if __name__ == "__main__":
    unittest.main()
