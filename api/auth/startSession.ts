import { randomUUID } from 'node:crypto';
import type { CommonQueryMethods } from 'slonik';
import { insertSession } from '../../shared/db/queries/sessions.ts';
import { SESSION_MAX_AGE_SECONDS } from './sessionCookie.ts';

/**
 * A new server-side session with a fresh random id, never one the browser brought with it, so that
 * nothing set before sign-in (session fixation) survives it.
 */
export const startSession = async (connection: CommonQueryMethods, accountId: string, now: Date): Promise<string> => {
  const id = randomUUID();
  await insertSession(connection, {
    id,
    accountId,
    createdAt: now,
    expiresAt: new Date(now.getTime() + SESSION_MAX_AGE_SECONDS * 1000),
  });
  return id;
};
