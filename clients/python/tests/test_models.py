"""client.models stores, reads, lists, validates and deletes models; simulate(model=...) runs one."""

from __future__ import annotations

import json
import unittest
from pathlib import Path
from typing import Any

import bss
from support import new_account

GALLERY = Path(__file__).resolve().parents[3] / "docs" / "models"


def members() -> dict[str, Any]:
    """A small model: a member who is active, lapses or leaves."""
    return {
        "description": "A member who is active, lapses and comes back, or leaves for good.",
        "states": ["Active", "Lapsed", "Gone"],
        "initial": "Active",
        "terminal": ["Gone"],
        "max_steps": 40,
        "profiles": {"steady": {"lapse": 0.1, "back": 0.5, "leave": 0.02}},
        "transitions": {"Active": {"Lapsed": "lapse", "Gone": "leave"}, "Lapsed": {"Active": "back", "Gone": "leave * 2"}},
        "fields": [
            {"name": "visits", "type": "integer", "value": "state == 'Active' ? poisson(3) : 0"},
            {"name": "spend", "type": "number", "value": "state == 'Active' ? lognormal(3, 0.5) : 0 / 0", "decimals": 2},
        ],
    }


class ModelsTest(unittest.TestCase):
    def test_put_get_list_validate_delete(self) -> None:
        client = new_account("pro").client()
        first = client.models.put("members", members())
        self.assertEqual((first["name"], first["version"]), ("members", 1))
        self.assertEqual(client.models.put("members", members())["version"], 1)
        second = client.models.put("members", {**members(), "max_steps": 9})
        self.assertEqual(second["version"], 2)
        self.assertEqual(client.models.get("members")["version"], 2)
        self.assertEqual(client.models.get("members", 1)["digest"], first["digest"])
        self.assertEqual([(model["name"], model["version"]) for model in client.models.list()], [("members", 2)])
        verdict = client.models.validate(members())
        self.assertTrue(verdict["valid"])
        self.assertEqual(len(verdict["sample"]["records"]), 20)  # type: ignore[index]
        broken = client.models.validate({**members(), "initial": "Actve"})
        self.assertFalse(broken["valid"])
        self.assertEqual([issue["path"] for issue in broken["issues"]], ["initial"])
        with self.assertRaises(bss.ApiError) as refused:
            client.models.put("members", {**members(), "initial": "Actve"})
        self.assertEqual(refused.exception.code, "validation_failed")
        self.assertEqual(client.models.delete("members"), {"status": "deleted", "name": "members"})
        with self.assertRaises(bss.ApiError) as gone:
            client.models.get("members")
        self.assertEqual(gone.exception.code, "model_not_found")

    def test_simulate_a_model_into_pandas_with_nulls(self) -> None:
        client = new_account("pro").client()
        stored = client.models.put("members", members())
        result = client.simulate(model="members", n=200, seed=5)
        self.assertEqual(result.preset, "members")
        self.assertEqual(result.model, {"name": "members", "version": 1, "digest": stored["digest"]})
        frame = result.to_pandas()
        self.assertEqual(list(frame.columns), ["sequence_id", "interaction_id", "event_time", "state", "visits", "spend", "scenario_event"])
        self.assertEqual(str(frame["visits"].dtype), "int64")
        self.assertEqual(str(frame["spend"].dtype), "float64")
        self.assertTrue(frame["spend"].isna().any())
        streamed = list(client.iter_records(model="members@1", n=200, seed=5))
        self.assertEqual(streamed, result.records)
        with self.assertRaises(ValueError):
            client.simulate("finance", 5, model="members")

    def test_every_gallery_model_validates_and_runs(self) -> None:
        client = new_account("pro").client()
        for path in sorted(GALLERY.glob("*.json")):
            with self.subTest(model=path.stem):
                definition = json.loads(path.read_text(encoding="utf-8"))
                self.assertTrue(client.models.validate(definition)["valid"])
                client.models.put(path.stem, definition)
                self.assertEqual(len(client.simulate(model=path.stem, n=50, seed=1).records), 50)


if __name__ == "__main__":
    unittest.main()
