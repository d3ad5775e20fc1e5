-- A run's in-flight entry (api/limits/inflightEntry.ts) as the scripts read it, written once for those
-- that read one (settle, seedLimits). Entries of the previous version, with one-letter keys, are read too
-- until the last of them has settled. Returns nil for no entry, else: state ('run' or 'settled'), period
-- (the `YYYY-MM` of its quota), reserved (interactions), admitted_us, and once settled charged_requests,
-- charged_interactions.
local function read_entry(raw)
  if not raw then
    return nil
  end
  local entry = cjson.decode(raw)
  if entry.state ~= nil then
    local charged = entry.charged
    return {
      state = entry.state,
      period = string.sub(entry.run.periodStart, 1, 7),
      reserved = entry.run.numInteractions,
      admitted_us = entry.admittedUs,
      charged_requests = charged and charged.requests,
      charged_interactions = charged and charged.interactions,
    }
  end
  local charged = entry.c
  return {
    state = entry.s,
    period = entry.p,
    reserved = entry.n,
    admitted_us = entry.t,
    charged_requests = charged and charged[1],
    charged_interactions = charged and charged[2],
  }
end
