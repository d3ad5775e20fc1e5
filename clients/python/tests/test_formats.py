"""Downloads are byte for byte the API's body in each format; DataFrames carry the catalog's dtypes."""

from __future__ import annotations

import json
import re
import tempfile
import unittest
from datetime import datetime, timezone
from pathlib import Path

import bss
from support import Account, new_account, raw_get

PRESETS = ("education", "finance", "healthcare", "mobile_app")
COMPUTE_MS = re.compile(rb'"compute_ms":\d+')
DTYPES = {"integer": "int64", "number": "float64", "string": "string"}
TIME_DTYPE = "datetime64[ns, UTC]"


class FormatsTest(unittest.TestCase):
    account: Account
    client: bss.Client
    directory: tempfile.TemporaryDirectory[str]

    @classmethod
    def setUpClass(cls) -> None:
        cls.account = new_account("pro")
        cls.client = cls.account.client()
        cls.directory = tempfile.TemporaryDirectory()

    @classmethod
    def tearDownClass(cls) -> None:
        cls.directory.cleanup()

    def test_download_is_byte_identical_to_the_api_in_json_ndjson_and_csv(self) -> None:
        run = self.client.simulate("mobile_app", 250, seed=13)
        for file_format, accept in (("json", "application/json"), ("ndjson", "application/x-ndjson"), ("csv", "text/csv")):
            with self.subTest(format=file_format):
                target = Path(self.directory.name) / f"run.{file_format}"
                download = self.client.download(run.simulation_id, target)
                status, headers, expected = raw_get(f"/v1/simulations/{run.simulation_id}/records", self.account.key, accept)
                self.assertEqual(status, 200)
                # A replay measures metadata.compute_ms anew (JSON only); every other byte is the same.
                self.assertEqual(COMPUTE_MS.sub(b"", target.read_bytes()), COMPUTE_MS.sub(b"", expected))
                self.assertEqual((download.size, download.format, download.preset), (target.stat().st_size, file_format, "mobile_app"))
                self.assertFalse(target.with_name(target.name + ".part").exists())

    def test_every_format_reads_back_as_the_same_frame(self) -> None:
        run = self.client.simulate("finance", 120, seed=4)
        expected = run.to_pandas()
        for file_format in ("json", "ndjson", "csv"):
            with self.subTest(format=file_format):
                frame = self.client.download(run.simulation_id, Path(self.directory.name) / f"frame.{file_format}").to_pandas()
                self.assertEqual(list(frame.dtypes.astype(str)), list(expected.dtypes.astype(str)))
                self.assertTrue(frame.equals(expected))
        self.assertEqual(json.loads(json.dumps(run.records)), run.body["data"])

    def test_to_pandas_types_every_presets_columns_from_the_catalog(self) -> None:
        for preset in self.client.presets():
            with self.subTest(preset=preset["name"]):
                frame = self.client.simulate(preset["name"], 50, seed=1).to_pandas()
                fields = [field for field in preset["record_fields"] if field["name"] in frame.columns]
                self.assertEqual(list(frame.columns), [field["name"] for field in fields])
                expected = {f["name"]: TIME_DTYPE if f["name"] == "event_time" else DTYPES[f["type"]] for f in fields}
                self.assertEqual({name: str(dtype) for name, dtype in frame.dtypes.items()}, expected)
                self.assertEqual(len(frame), 50)

    def test_the_readme_quick_start(self) -> None:
        client = bss.Client(api_key=self.account.key)  # BSS_API_URL from the environment
        df = client.simulate("finance", 1000, seed=42).to_pandas()
        # Engine 4 (the default): the six finance fields, event_time and scenario_event (<NA> without a scenario).
        self.assertEqual(df.shape, (1000, 8))
        self.assertEqual(str(df["event_time"].dtype), "datetime64[ns, UTC]")
        self.assertTrue(df["scenario_event"].isna().all())
        self.assertEqual(str(df["portfolio_value"].dtype), "float64")
        self.assertEqual(str(df["risk_alert"].dtype), "int64")
        self.assertEqual(str(df["state"].dtype), "string")

    def test_engine_4_start_time_order_and_population(self) -> None:
        start = datetime(2027, 1, 1, 8, tzinfo=timezone.utc)
        run = self.client.simulate("healthcare", 300, seed=2, start_time=start, order="time", population=10)
        self.assertEqual((run.body["start_time"], run.body["order"], run.body["population"]), ("2027-01-01T08:00:00.000Z", "time", 10))
        frame = run.to_pandas()
        self.assertTrue(frame["event_time"].is_monotonic_increasing)
        self.assertGreaterEqual(frame["event_time"].iloc[0], start)
        self.assertEqual(list(frame["interaction_id"]), list(range(1, 301)))
        streamed = self.client.download(run.simulation_id, Path(self.directory.name) / "timed.csv").to_pandas()
        self.assertTrue(streamed.equals(frame))

    def test_a_nullable_string_field_reads_as_na(self) -> None:
        # Engine 3's scenario_event is null outside an event; the records decide, whatever the engine.
        from bss._frames import records_to_frame

        records: list[bss.Record] = [
            {"sequence_id": 1, "interaction_id": 1, "state": "Stable", "scenario_event": None},
            {"sequence_id": 1, "interaction_id": 2, "state": "Drawdown", "scenario_event": "market_crash"},
        ]
        frame = records_to_frame(records, [("sequence_id", "integer"), ("interaction_id", "integer"), ("state", "string"), ("scenario_event", "string")])
        self.assertEqual(str(frame["scenario_event"].dtype), "string")
        self.assertTrue(frame["scenario_event"].isna().iloc[0])
        self.assertEqual(frame["scenario_event"].iloc[1], "market_crash")


if __name__ == "__main__":
    unittest.main()
