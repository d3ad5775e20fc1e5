/** The calendar month in UTC that `now` falls in: usage is counted per such period. */
export interface MonthlyPeriod {
  readonly start: Date;
  readonly end: Date;
  /** `YYYY-MM`, for Redis keys. */
  readonly key: string;
}

// The period of the last call: every request asks, and nearly all of them fall in the same month.
let last: MonthlyPeriod | undefined;

export const monthlyPeriod = (now: Date): MonthlyPeriod => {
  const time = now.getTime();
  if (last !== undefined && time >= last.start.getTime() && time < last.end.getTime()) {
    return last;
  }
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  last = Object.freeze({ start, end, key: start.toISOString().slice(0, 7) });
  return last;
};
