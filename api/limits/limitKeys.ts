/**
 * Redis keys of one account's limits. The `{accountId}` hash tag puts them in one Cluster slot, which a
 * multi-key script needs.
 */
export const limitKeys = (prefix: string, accountId: string, periodKey: string) => ({
  rateWindow: `${prefix}:rate:{${accountId}}`,
  quota: `${prefix}:quota:{${accountId}}:${periodKey}`,
  slots: `${prefix}:slots:{${accountId}}`,
  ...accountRunKeys(prefix, accountId),
});

/**
 * The account's runs between admission and their ledger row (inflightEntry.ts), and the
 * marker whose absence tells a quota rebuild that Redis lost this account's data (seedLimits.lua).
 */
export const accountRunKeys = (prefix: string, accountId: string) => ({
  inflight: `${prefix}:inflight:{${accountId}}`,
  marker: `${prefix}:limits:{${accountId}}`,
});

/**
 * When this Redis (or this prefix in it) began to hold the service's data, ms since the epoch: every API
 * process sets it if missing (createLeaseKeeper.ts), so a young value says Redis lost its
 * data (or is new) a moment ago, and a quota rebuild waits for the processes to put back their runs.
 */
export const limitsEpochKey = (prefix: string): string => `${prefix}:limits-epoch`;

/** The pattern of every account's in-flight hash, for the stale-run sweeper's scan. */
export const inflightKeyPattern = (prefix: string): string => `${prefix}:inflight:{*}`;

/** The account id in an in-flight hash's key. */
export const accountOfInflightKey = (prefix: string, key: string): string | undefined => {
  const head = `${prefix}:inflight:{`;
  return key.startsWith(head) && key.endsWith('}') ? key.slice(head.length, -1) : undefined;
};

/** The window of an account's API key creations and rolls (admitKeyChange.lua), under the same hash tag. */
export const keyChangeWindowKey = (prefix: string, accountId: string): string => `${prefix}:keychanges:{${accountId}}`;
