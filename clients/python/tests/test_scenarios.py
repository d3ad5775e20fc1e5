"""Engine 3's scenarios from Python: a matched pair of runs compared in pandas, the echo, the history, refusals."""

from __future__ import annotations

import unittest

import pandas

import bss
from support import new_account

CRASH = {"events": [{"type": "market_crash", "sequence": 1, "at_step": 20, "duration": 10}]}
# The history's echo: the validated scenario, intensity filled in.
CRASH_ECHO = {"events": [{"type": "market_crash", "sequence": 1, "at_step": 20, "duration": 10, "intensity": 1}]}
# The result's: that, and what the run made of it (the crash labelled records of sequence 1).
CRASH_RESULT = {**CRASH_ECHO, "placed": CRASH_ECHO["events"], "unplaced": []}


def with_steps(frame: pandas.DataFrame) -> pandas.DataFrame:
    """Each record's position within its sequence: the key that pairs two runs (interaction_id may shift)."""
    return frame.assign(step=frame.groupby("sequence_id").cumcount() + 1)


class ScenarioTest(unittest.TestCase):
    def test_a_matched_pair_differs_only_inside_the_event_and_after_it_in_its_sequence(self) -> None:
        client = new_account("pro").client()
        base = client.simulate("finance", 2000, seed=42, engine_version="3")
        shocked = client.simulate("finance", 2000, seed=42, engine_version="3", scenario=CRASH)
        self.assertEqual((base.scenario, shocked.scenario), (None, CRASH_RESULT))
        self.assertEqual(shocked.metadata["service_version"].split(".")[0], "3")

        frames = [with_steps(result.to_pandas()) for result in (base, shocked)]
        self.assertEqual(str(frames[1]["scenario_event"].dtype), "string")
        self.assertTrue(frames[0]["scenario_event"].isna().all())
        pair = frames[0].merge(frames[1], on=["sequence_id", "step"], suffixes=("_base", "_crash"))

        # Steps 20 to 29 of sequence 1; fewer only if the crash ends the sequence (an account closed) inside.
        window = pair[pair["scenario_event_crash"] == "market_crash"]
        self.assertTrue(1 <= len(window) <= 10)
        self.assertEqual(list(window["sequence_id"]), [1] * len(window))
        self.assertEqual(list(window["step"]), list(range(20, 20 + len(window))))
        self.assertLess(window["daily_return_crash"].sum(), window["daily_return_base"].sum())

        # Before the event, and in every sequence it does not target, the two runs are the same.
        before = pair[(pair["sequence_id"] == 1) & (pair["step"] < 20)]
        self.assertEqual(len(before), 19)
        control = pair[(pair["sequence_id"] != 1) & (pair["sequence_id"] < pair["sequence_id"].max())]
        self.assertGreater(len(control), 0)
        for same in (before, control):
            for field in ("state", "portfolio_value", "daily_return", "risk_alert"):
                pandas.testing.assert_series_equal(same[f"{field}_base"], same[f"{field}_crash"], check_names=False)

    def test_iter_records_history_and_replay_carry_the_scenario(self) -> None:
        client = new_account("pro").client()
        result = client.simulate("finance", 300, seed=5, engine_version="3", scenario=CRASH)
        with client.iter_records("finance", 300, seed=5, engine_version="3", scenario=CRASH) as stream:
            streamed = list(stream)
        self.assertEqual(streamed, result.records)
        self.assertEqual(client.run(result.simulation_id)["scenario"], CRASH_ECHO)
        with client.replay(result.simulation_id) as replay:
            self.assertEqual(list(replay), result.records)
        self.assertEqual([run["scenario"] for run in client.history(limit=2)], [CRASH_ECHO, CRASH_ECHO])

    def test_a_scenario_the_service_refuses_raises_api_error_naming_the_field(self) -> None:
        client = new_account("pro").client()
        cases = [
            ({"engine_version": "2", "scenario": CRASH}, "scenario"),
            ({"engine_version": "3", "scenario": {"events": [{**CRASH["events"][0], "type": "fatigue"}]}}, "scenario.events.0.type"),
            ({"engine_version": "3", "scenario": {"events": [{**CRASH["events"][0], "duration": 0}]}}, "scenario.events.0.duration"),
        ]
        for options, path in cases:
            with self.subTest(path=path), self.assertRaises(bss.ApiError) as raised:
                client.simulate("finance", 10, seed=1, **options)
            self.assertEqual((raised.exception.status, raised.exception.code), (422, "validation_failed"))
            self.assertIn(path, [issue["path"] for issue in raised.exception.details["issues"]])


if __name__ == "__main__":
    unittest.main()
