"""history() walks every page; runs can be read one by one and replayed."""

from __future__ import annotations

import unittest
import uuid

from support import new_account


class HistoryTest(unittest.TestCase):
    def test_history_follows_next_cursor_through_every_page_newest_first(self) -> None:
        client = new_account("pro").client()
        made = [client.simulate("education" if index % 2 else "finance", 2 + index, seed=index).simulation_id for index in range(7)]
        runs = list(client.history(page_size=3))
        ids = [run["simulation_id"] for run in runs]
        # Every run once, over three pages; newest first (runs admitted in one batch share a timestamp,
        # so the order among those is the service's tie-break, not the order of the calls).
        self.assertEqual(sorted(ids), sorted(made))
        self.assertEqual([run["created_at"] for run in runs], sorted((run["created_at"] for run in runs), reverse=True))
        self.assertTrue(all(run["status"] == "completed" for run in runs))
        self.assertEqual([run["simulation_id"] for run in client.history(page_size=2, limit=3)], ids[:3])
        education = [run["simulation_id"] for run in client.history(preset="education", page_size=2)]
        self.assertEqual(education, [run_id for run_id in ids if run_id in made[1::2]])
        self.assertEqual(list(client.history(status="failed")), [])

    def test_an_idempotent_replay_appears_once(self) -> None:
        client = new_account("pro").client()
        key = str(uuid.uuid4())
        first = client.simulate("finance", 30, seed=8, idempotency_key=key)
        again = client.simulate("finance", 30, seed=8, idempotency_key=key)
        self.assertEqual((first.replayed, again.replayed), (False, True))
        self.assertEqual((again.simulation_id, again.seed, again.records), (first.simulation_id, first.seed, first.records))
        self.assertEqual([run["simulation_id"] for run in client.history()], [first.simulation_id])
        self.assertEqual(client.usage()["usage"], {"requests": 1, "interactions": 30})

    def test_a_run_and_its_replay(self) -> None:
        client = new_account("pro").client()
        result = client.simulate("healthcare", 40, seed=77)
        run = client.run(result.simulation_id)
        self.assertEqual((run["preset"], run["seed"], run["num_interactions"], run["status"]), ("healthcare", 77, 40, "completed"))
        self.assertEqual(run["service_version"], result.metadata["service_version"])
        with client.replay(result.simulation_id) as replay:
            self.assertEqual(replay.simulation_id, result.simulation_id)
            self.assertEqual(list(replay), result.records)


if __name__ == "__main__":
    unittest.main()
