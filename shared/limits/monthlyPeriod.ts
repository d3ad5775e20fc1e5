/** The calendar month in UTC that `now` falls in: usage is counted per such period. */
export interface MonthlyPeriod {
  readonly start: Date;
  readonly end: Date;
  /** `YYYY-MM`, for Redis keys. */
  readonly key: string;
}

export const monthlyPeriod = (now: Date): MonthlyPeriod => {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { start, end, key: start.toISOString().slice(0, 7) };
};
