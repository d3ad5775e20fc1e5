/** The first instant of the UTC calendar month holding `date`: the monthly period a request counts against. */
export const startOfUtcMonth = (date: Date): Date => new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1));
