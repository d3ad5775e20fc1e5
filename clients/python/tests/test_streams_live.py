"""client.streams: live streams against the real service, and the SSE reading against the tests' own fake
(what the service does not do on demand: CRLF, multi-line data, a message cut in half, no end at all)."""

from __future__ import annotations

import os
import socket
import unittest

import bss
from fakeservice import FakeService, Handler, Reply, Seen, chunked_without_end, envelope
from support import new_account

# test/python/client.test.ts starts it: the service behind a proxy that resets the first two answers to
# GET …/events once 20,000 bytes of each went through.
STREAM_CUT_URL = os.environ.get("BSS_TEST_STREAM_CUT_URL", "")
START = "2026-01-01T00:00:00.000Z"
FAST = {"preset": "mobile_app", "seed": 11, "population": 300, "start_time": START, "speed": 100_000}
DISORDER = {"late_share": 0.2, "max_delay_s": 600, "duplicate_share": 0.1}
UNKNOWN = "00000000-0000-4000-8000-000000000000"


def read_all(events: bss.StreamEvents) -> list[bss.StreamEnvelope]:
    with events:
        return list(events)


class LiveStreamTest(unittest.TestCase):
    def test_a_fast_stream_delivers_the_records_of_simulate_in_time_order_then_ends_completed(self) -> None:
        client = new_account().client()
        stream = client.streams.create(n=300, **FAST)
        self.assertEqual((stream["status"], stream["num_interactions"], stream["speed"]), ("running", 300, 100_000))
        self.assertNotIn("webhook_secret", stream)
        events = client.streams.events(stream["id"])
        envelopes = read_all(events)
        self.assertEqual([envelope["position"] for envelope in envelopes], list(range(1, 301)))
        self.assertEqual({(envelope["duplicate"], envelope["delay_ms"]) for envelope in envelopes}, {(False, 0)})
        run = client.simulate("mobile_app", 300, seed=11, population=300, start_time=START, order="time")
        self.assertEqual([envelope["record"] for envelope in envelopes], run.records)
        self.assertEqual((events.last_event_id, events.reconnects), (300, 0))
        self.assertIsNotNone(events.stream)
        assert events.stream is not None
        self.assertEqual((events.stream["id"], events.stream["status"]), (stream["id"], "completed"))
        self.assertEqual(client.streams.get(stream["id"])["status"], "completed")

    def test_streams_are_listed_newest_first_page_by_page(self) -> None:
        client = new_account().client()
        first = client.streams.create("mobile_app", 5, seed=1, speed=100_000)
        second = client.streams.create("mobile_app", num_interactions=5, seed=2, speed=100_000)
        page = client.streams.list(limit=1)
        self.assertEqual([listed["id"] for listed in page["data"]], [second["id"]])
        self.assertIsNotNone(page["next_cursor"])
        rest = client.streams.list(limit=1, cursor=page["next_cursor"])
        self.assertEqual(([listed["id"] for listed in rest["data"]], rest["next_cursor"]), ([first["id"]], None))
        self.assertEqual([listed["id"] for listed in client.streams.list()["data"]], [second["id"], first["id"]])

    def test_events_resume_after_a_position_and_the_two_reads_make_the_uninterrupted_one(self) -> None:
        client = new_account().client()
        stream = client.streams.create(n=200, disorder=DISORDER, **{**FAST, "seed": 4})
        whole = read_all(client.streams.events(stream["id"]))
        self.assertTrue(any(envelope["duplicate"] for envelope in whole), "the disorder duplicates some records")
        self.assertEqual([envelope["position"] for envelope in whole], list(range(1, len(whole) + 1)))
        head: list[bss.StreamEnvelope] = []
        with client.streams.events(stream["id"]) as events:
            for envelope in events:
                head.append(envelope)
                if len(head) == 37:
                    break
            self.assertEqual(events.last_event_id, 37)
        tail = read_all(client.streams.events(stream["id"], last_event_id=37))
        self.assertEqual(tail[0]["position"], 38)
        self.assertEqual(head + tail, whole)

    def test_a_connection_cut_mid_body_is_resumed_with_last_event_id_and_misses_nothing(self) -> None:
        if not STREAM_CUT_URL:
            self.fail("BSS_TEST_STREAM_CUT_URL is not set: run these tests through `npx ava test/python/client.test.ts`")
        account = new_account()
        stream = account.client().streams.create(n=400, **{**FAST, "seed": 8})
        uninterrupted = read_all(account.client().streams.events(stream["id"]))
        through_cuts = bss.Client(STREAM_CUT_URL, account.key).streams
        events = through_cuts.events(stream["id"])
        self.assertEqual(read_all(events), uninterrupted)
        self.assertEqual(events.reconnects, 2, "the proxy cut the first two answers")
        assert events.stream is not None
        self.assertEqual(events.stream["status"], "completed")

    def test_a_cancelled_stream_ends_its_events_with_what_was_delivered(self) -> None:
        client = new_account().client()
        stream = client.streams.create("mobile_app", 50, seed=3, speed=0.01)
        cancelled = client.streams.cancel(stream["id"])
        self.assertEqual((cancelled["id"], cancelled["status"]), (stream["id"], "cancelled"))
        self.assertEqual(client.streams.get(stream["id"])["status"], "cancelled")
        self.assertEqual(client.streams.cancel(stream["id"])["status"], "cancelled", "cancelling again answers it as it is")
        events = client.streams.events(stream["id"])
        envelopes = read_all(events)
        assert events.stream is not None
        self.assertEqual(events.stream["status"], "cancelled")
        self.assertEqual(len(envelopes), events.stream["delivered"])

    def test_an_unknown_stream_is_stream_not_found(self) -> None:
        client = new_account().client()
        for call in (client.streams.get, client.streams.cancel, lambda stream_id: next(client.streams.events(stream_id))):
            with self.subTest(call=call), self.assertRaises(bss.ApiError) as caught:
                call(UNKNOWN)
            self.assertEqual((caught.exception.status, caught.exception.code), (404, "stream_not_found"))

    def test_create_takes_exactly_one_of_preset_and_model_and_a_count(self) -> None:
        streams = bss.Client("http://127.0.0.1:9", "bs_live_test").streams
        with self.assertRaises(ValueError):
            streams.create(n=5)
        with self.assertRaises(ValueError):
            streams.create("mobile_app", 5, model="funnel")
        with self.assertRaises(ValueError):
            streams.create("mobile_app")
        with self.assertRaises(ValueError):
            streams.create("mobile_app", 5, num_interactions=6)


def message(position: int, crlf: bool = False) -> bytes:
    end = "\r\n" if crlf else "\n"
    return f'id: {position}{end}data: {{"position":{position},{end}data: "record":{{}},"delay_ms":0,"duplicate":false}}{end}{end}'.encode()


END = b'event: end\ndata: {"id":"s1","status":"completed"}\n\n'


def sse(data: bytes) -> Reply:
    def reply(handler: Handler, seen: Seen) -> None:
        handler.raw(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\nContent-Length: %d\r\n\r\n%s" % (len(data), data))

    return reply


class EventStreamReadingTest(unittest.TestCase):
    def client(self, fake: FakeService, waits: list[float]) -> bss.Client:
        client = bss.Client(fake.url, "bs_live_test")
        client._transport.sleep = waits.append  # the backoff is the clock's business, not this test's
        return client

    def test_comments_crlf_multi_line_data_and_unknown_events_are_read_as_the_standard_says(self) -> None:
        body = b"\xef\xbb\xbf: stream\r\n\r\n" + message(1, crlf=True) + b": keep-alive\r\rretry: 10\nevent: other\ndata: x\n\n" + message(2) + END
        with FakeService([sse(body)]) as fake:
            waits: list[float] = []
            events = self.client(fake, waits).streams.events("s1")
            self.assertEqual([envelope["position"] for envelope in events], [1, 2])
            self.assertEqual(events.stream, {"id": "s1", "status": "completed"})
            self.assertEqual((events.last_event_id, events.reconnects, waits), (2, 0, []))
            self.assertEqual(fake.seen[0].path, "/v1/streams/s1/events")
            self.assertEqual(fake.seen[0].headers["accept"], "text/event-stream")
            self.assertNotIn("last-event-id", fake.seen[0].headers)

    def test_a_message_cut_in_half_is_dropped_and_asked_for_again_after_the_last_whole_one(self) -> None:
        third = message(3)
        first = chunked_without_end("text/event-stream", [message(1), message(2) + third[:20]])
        with FakeService([first, sse(third + END)]) as fake:
            waits: list[float] = []
            events = self.client(fake, waits).streams.events("s1", last_event_id=0)
            self.assertEqual([envelope["position"] for envelope in events], [1, 2, 3])
            self.assertEqual([seen.headers.get("last-event-id") for seen in fake.seen], ["0", "2"])
            self.assertEqual((events.reconnects, waits), (1, [0.5]))

    def test_a_body_that_ends_without_its_end_event_is_read_on_from_the_last_position(self) -> None:
        with FakeService([sse(message(5)), sse(message(6) + END)]) as fake:
            events = self.client(fake, []).streams.events("s1", last_event_id=4)
            self.assertEqual([envelope["position"] for envelope in events], [5, 6])
            self.assertEqual([seen.headers.get("last-event-id") for seen in fake.seen], ["4", "5"])

    def test_breaks_in_a_row_without_an_event_give_up_after_max_reconnects_with_a_connection_error(self) -> None:
        with FakeService([chunked_without_end("text/event-stream", [b": stream\n\n"])]) as fake:
            waits: list[float] = []
            events = self.client(fake, waits).streams.events("s1", max_reconnects=4)
            with self.assertRaises(bss.ApiConnectionError) as caught:
                list(events)
            self.assertEqual(caught.exception.kind, "cut_short")
            self.assertEqual(len(fake.seen), 5)
            self.assertEqual(waits, [0.5, 1.0, 2.0, 4.0])

    def test_an_unreachable_service_is_an_api_connection_error_after_the_reconnections(self) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            url = f"http://127.0.0.1:{probe.getsockname()[1]}"
        waits: list[float] = []
        client = bss.Client(url, "")
        client._transport.sleep = waits.append
        with self.assertRaises(bss.ApiConnectionError) as caught:
            next(client.streams.events("s1", max_reconnects=2))
        self.assertEqual((caught.exception.kind, waits), ("unreachable", [0.5, 1.0]))

    def test_a_refusal_is_raised_at_once(self) -> None:
        with FakeService([envelope(401, "unauthorized")]) as fake:
            with self.assertRaises(bss.ApiError) as caught:
                next(self.client(fake, []).streams.events("s1"))
            self.assertEqual((caught.exception.status, caught.exception.code, len(fake.seen)), (401, "unauthorized", 1))


if __name__ == "__main__":
    unittest.main()
