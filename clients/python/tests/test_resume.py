"""download() against the real service, through a proxy that cuts the connection mid-body twice."""

from __future__ import annotations

import os
import tempfile
import unittest
from pathlib import Path

import bss
from support import new_account, raw_get

# test/python/client.test.ts starts it: the service behind a proxy that resets the first two answers to
# GET …/records once 150,000 bytes of each went through.
CUT_URL = os.environ.get("BSS_TEST_CUT_URL", "")


class ResumeAgainstServiceTest(unittest.TestCase):
    def test_a_download_cut_twice_resumes_with_range_and_equals_the_api_body(self) -> None:
        if not CUT_URL:
            self.fail("BSS_TEST_CUT_URL is not set: run these tests through `npx ava test/python/client.test.ts`")
        account = new_account()
        run = account.client().simulate("finance", 10_000, seed=17)
        status, _, body = raw_get(f"/v1/simulations/{run.simulation_id}/records", account.key, "text/csv")
        self.assertEqual(status, 200)
        with tempfile.TemporaryDirectory() as directory:
            target = Path(directory) / "run.csv"
            download = bss.Client(CUT_URL, account.key).download(run.simulation_id, target)
            self.assertEqual(target.read_bytes(), body)
            self.assertEqual((download.resumes, download.restarts, download.size), (2, 0, len(body)))
            self.assertTrue(download.etag is not None and download.etag.startswith('"'))
            self.assertEqual(sorted(path.name for path in Path(directory).iterdir()), ["run.csv"])


if __name__ == "__main__":
    unittest.main()
