"""download() resumes a cut connection with Range guarded by If-Range, and starts again on a 200."""

from __future__ import annotations

import tempfile
import unittest
from pathlib import Path

import bss
from fakeservice import FakeService, ranged
from support import new_account

CSV = "text/csv; charset=utf-8"
DATA = b"sequence_id,interaction_id,state\r\n" + b"".join(b"1,%d,Stable\r\n" % index for index in range(1, 5001))
ETAG = '"run-csv-1"'


class ResumeTest(unittest.TestCase):
    """Against a server of the test's own that speaks Range, since it can cut a body where told."""

    def setUp(self) -> None:
        self.directory = tempfile.TemporaryDirectory()
        self.addCleanup(self.directory.cleanup)
        self.target = Path(self.directory.name) / "run.csv"

    def test_a_cut_connection_resumes_where_it_stopped(self) -> None:
        with FakeService([ranged(DATA, CSV, ETAG, cut_after=10_000), ranged(DATA, CSV, ETAG, cut_after=20_000), ranged(DATA, CSV, ETAG)]) as fake:
            download = bss.Client(fake.url, "k").download("0b5f3a9e-0000-4000-8000-000000000000", self.target)
        self.assertEqual(self.target.read_bytes(), DATA)
        self.assertEqual((download.size, download.resumes, download.restarts, download.etag), (len(DATA), 2, 0, ETAG))
        self.assertEqual([seen.headers.get("range") for seen in fake.seen], [None, "bytes=10000-", "bytes=30000-"])
        self.assertEqual([seen.headers.get("if-range") for seen in fake.seen], [None, ETAG, ETAG])
        self.assertEqual(fake.seen[0].path, "/v1/simulations/0b5f3a9e-0000-4000-8000-000000000000/records")
        self.assertTrue(all(seen.headers["accept"] == "text/csv" for seen in fake.seen))

    def test_a_200_to_a_resume_writes_the_whole_body_again(self) -> None:
        # The service could not serve the range (or the tag changed): it answers 200 with the whole body.
        with FakeService([ranged(DATA, CSV, ETAG, cut_after=7_000), ranged(DATA, CSV, ETAG, honour_ranges=False)]) as fake:
            download = bss.Client(fake.url, "k").download("id", self.target)
        self.assertEqual(self.target.read_bytes(), DATA)
        self.assertEqual((download.resumes, download.restarts), (0, 1))
        self.assertEqual(fake.seen[1].headers.get("range"), "bytes=7000-")

    def test_without_a_strong_etag_a_cut_download_starts_again_unranged(self) -> None:
        for etag in (None, 'W/"weak"'):
            with self.subTest(etag=etag), FakeService([ranged(DATA, CSV, etag, cut_after=5_000), ranged(DATA, CSV, etag)]) as fake:
                download = bss.Client(fake.url, "k").download("id", self.target)
                self.assertEqual(self.target.read_bytes(), DATA)
                self.assertEqual((download.resumes, download.restarts), (0, 1))
                self.assertIsNone(fake.seen[1].headers.get("range"))

    def test_a_download_that_keeps_breaking_fails_and_leaves_no_file(self) -> None:
        with FakeService([ranged(DATA, CSV, ETAG, cut_after=1_000)]) as fake:
            with self.assertRaises(bss.IncompleteBodyError):
                bss.Client(fake.url, "k").download("id", self.target, max_resumes=2)
        self.assertEqual(len(fake.seen), 3)
        self.assertEqual(list(Path(self.directory.name).iterdir()), [])

    def test_the_format_comes_from_the_suffix_unless_given(self) -> None:
        client = bss.Client("http://127.0.0.1:9", "k")
        with self.assertRaises(ValueError):
            client.download("id", Path(self.directory.name) / "run.txt")
        with self.assertRaises(ValueError):
            client.download("id", self.target, format="xml")  # type: ignore[arg-type]


class RealServiceDownloadTest(unittest.TestCase):
    def test_a_download_of_the_real_service_is_whole_and_typed(self) -> None:
        client = new_account("pro").client()
        run = client.simulate("education", 2_000, seed=6)
        with tempfile.TemporaryDirectory() as directory:
            download = client.download(run.simulation_id, Path(directory) / "records.data", format="ndjson")
            self.assertEqual((download.simulation_id, download.preset, download.resumes), (run.simulation_id, "education", 0))
            frame = download.to_pandas()
        self.assertTrue(frame.equals(run.to_pandas()))


if __name__ == "__main__":
    unittest.main()
