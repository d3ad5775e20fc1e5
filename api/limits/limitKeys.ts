/**
 * Redis keys of one account's limits. The `{accountId}` hash tag puts them in one Cluster slot, which a
 * multi-key script needs.
 */
export const limitKeys = (prefix: string, accountId: string, periodKey: string) => ({
  rateWindow: `${prefix}:rate:{${accountId}}`,
  quota: `${prefix}:quota:{${accountId}}:${periodKey}`,
  slots: `${prefix}:slots:{${accountId}}`,
});

/** The window of an account's API key creations and rolls (admitKeyChange.lua), under the same hash tag. */
export const keyChangeWindowKey = (prefix: string, accountId: string): string => `${prefix}:keychanges:{${accountId}}`;
