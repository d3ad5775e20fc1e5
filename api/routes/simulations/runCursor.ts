import type { RunCursor } from '../../../shared/db/queries/simulationRuns.ts';

const PAYLOAD = /^((?:19[7-9]\d|2\d{3})-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z)\|([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

/**
 * The history cursor: the last row's (created_at to the microsecond, id), base64url-encoded so clients
 * treat it as opaque. It carries no account: the query is scoped by the caller's own account, so a cursor
 * copied from someone else only positions a page of one's own runs.
 */
export const encodeRunCursor = (cursor: RunCursor): string => Buffer.from(`${cursor.createdAt}|${cursor.id}`, 'utf8').toString('base64url');

/** The cursor, or undefined for anything this service did not make (never a database cast error later). */
export const decodeRunCursor = (encoded: string): RunCursor | undefined => {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(encoded)) {
    return undefined;
  }
  const match = PAYLOAD.exec(Buffer.from(encoded, 'base64url').toString('utf8'));
  if (match === null) {
    return undefined;
  }
  const [, createdAt = '', id = ''] = match;
  // A real instant: 2026-02-30 matches the pattern but is no date.
  const milliseconds = createdAt.slice(0, 23);
  const parsed = new Date(`${milliseconds}Z`);
  if (Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 23) !== milliseconds) {
    return undefined;
  }
  return { createdAt, id };
};
