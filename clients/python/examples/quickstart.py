# %% [markdown]
# # bss quick start
#
# A notebook in a file: each `# %%` cell runs in Jupyter, VS Code or as a plain script
# (`python examples/quickstart.py`). It needs `BSS_API_URL` (default `http://localhost:3000`) and
# `BSS_API_KEY`, and pandas for the DataFrames.

# %%
import tempfile
from pathlib import Path

import bss

client = bss.Client()  # BSS_API_URL, BSS_API_KEY
print(client)

# %% [markdown]
# ## The catalog: presets, their profiles and record fields

# %%
for preset in client.presets():
    print(f"{preset['name']:<11} profiles: {', '.join(preset['supported_profiles'])}")

# %% [markdown]
# ## A DataFrame in three lines

# %%
df = client.simulate("finance", 1000, seed=42).to_pandas()
print(df.dtypes)
print(df.groupby("state")["daily_return"].agg(["count", "mean", "std"]))

# %% [markdown]
# ## Same seed, same data: compare two profiles

# %%
spread = {
    profile: client.simulate("finance", 1000, seed=7, profile=profile).to_pandas()["daily_return"].std()
    for profile in ("conservative_investor", "active_trader")
}
print(spread)
assert spread["conservative_investor"] < spread["active_trader"]

# %% [markdown]
# ## A matched pair: the same seed with and without a market crash
#
# Engine 3 (the default) takes a scenario. A crash on sequence 1 from its step 20 for 10 steps, against the
# same seed without it: everything before the event and every other sequence is identical, so the
# difference inside the window is the event's effect. Each record's `scenario_event` names the event active
# at it (`<NA>` elsewhere).

# %%
crash = {"events": [{"type": "market_crash", "sequence": 1, "at_step": 20, "duration": 10}]}
base = client.simulate("finance", 1000, seed=42).to_pandas()
shocked = client.simulate("finance", 1000, seed=42, scenario=crash).to_pandas()
window = shocked["scenario_event"] == "market_crash"  # the event's 10 records
diff = shocked["daily_return"] - base["daily_return"]
print(f"crash window: {window.sum()} records, cumulative daily_return {diff[window].sum():+.3f}")
print("identical before step 20:", (diff[:19] == 0).all())
# Ten records, fewer only if the crash ends the sequence (an account closed) inside the window.
assert 1 <= window.sum() <= 10 and diff[window].sum() < 0 and (diff[:19] == 0).all()

# %% [markdown]
# ## Large runs: stream records one at a time

# %%
n = min(20_000, client.usage()["plan"]["max_interactions_per_request"])  # as many as the plan allows
with client.iter_records("mobile_app", n, seed=3) as stream:
    revenue = sum(record["revenue"] for record in stream)
print(f"run {stream.simulation_id}: {n} records, revenue {revenue:.2f}")

# %% [markdown]
# ## Files: download a run in any format (resumed if the connection breaks)

# %%
with tempfile.TemporaryDirectory() as directory:
    download = client.download(stream.simulation_id, Path(directory) / "mobile.csv")
    print(f"{download.size} bytes of CSV")
    print(download.to_pandas().describe())

# %% [markdown]
# ## Errors say what happened, with a code to branch on

# %%
try:
    client.simulate("finance", 10, profile="day_trader")
except bss.ApiError as error:
    print(error.status, error.code, error.details.get("issues"), error.request_id)

# %% [markdown]
# ## History and usage

# %%
for run in client.history(limit=5):
    print(run["created_at"], run["preset"], run["num_interactions"], run["status"])
print(client.usage()["remaining"])
