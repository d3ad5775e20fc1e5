"""Benchmark datasets from Python: a random scenario's run written as a zip archive and read back."""

from __future__ import annotations

import io
import json
import tempfile
import unittest
import zipfile
from pathlib import Path

import pandas

import bss
from support import new_account

RANDOM = {"random": {"types": ["outage", "promotion"], "per_sequence": 2, "duration": [5, 20], "intensity": [0.5, 1.5]}}


class DatasetTest(unittest.TestCase):
    def test_dataset_writes_an_archive_whose_labels_are_the_runs(self) -> None:
        client = new_account("pro").client()
        result = client.simulate("mobile_app", 3000, seed=8, scenario=RANDOM)
        records = result.to_pandas()
        with tempfile.TemporaryDirectory() as directory:
            path = client.dataset(result.simulation_id, Path(directory) / "set.zip", layout="timeeval")
            self.assertEqual(sorted(p.name for p in Path(directory).iterdir()), ["set.zip"])
            with zipfile.ZipFile(path) as archive:
                self.assertIsNone(archive.testzip())
                manifest = json.loads(archive.read("manifest.json"))
                self.assertEqual(manifest["placed"], result.scenario["placed"])
                registry = json.loads(archive.read("datasets.json"))
                for sequence, rows in records.groupby("sequence_id"):
                    test = pandas.read_csv(io.BytesIO(archive.read(registry[str(sequence)]["test_path"])))
                    self.assertEqual(list(test["is_anomaly"]), list(rows["scenario_event"].notna().astype(int)))
                    # Engine 4 (the default): each row's timestamp is its record's event_time.
                    self.assertEqual(list(pandas.to_datetime(test["timestamp"], utc=True)), list(rows["event_time"]))
            nab = client.dataset(result.simulation_id, Path(directory) / "nab.zip", layout="nab", field="revenue")
            with zipfile.ZipFile(nab) as archive:
                self.assertEqual(json.loads(archive.read("manifest.json"))["columns"], {"value": "revenue"})

    def test_a_run_without_a_scenario_is_refused_and_leaves_no_file(self) -> None:
        client = new_account("pro").client()
        plain = client.simulate("finance", 50, seed=1)
        with tempfile.TemporaryDirectory() as directory:
            with self.assertRaises(bss.ApiError) as caught:
                client.dataset(plain.simulation_id, Path(directory) / "set.zip")
            self.assertEqual((caught.exception.status, caught.exception.code), (422, "validation_failed"))
            self.assertEqual(list(Path(directory).iterdir()), [])


if __name__ == "__main__":
    unittest.main()
