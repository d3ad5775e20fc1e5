import { randomUUID } from 'node:crypto';
import { type DatabasePool, sql } from 'slonik';
import { z } from 'zod';
import type { TestApp } from '../helpers/startTestApp.ts';

export interface ApiCall {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The body's bytes, for binary formats (Parquet). */
  readonly bytes: Buffer;
  // Tests read fields freely; the contract's shape is what they assert.
  readonly body: any;
}

/** GET over real HTTP with an API key, the raw text kept for byte comparisons. */
export const getWithKey = async (app: TestApp, path: string, key: string | undefined, headers: Record<string, string> = {}): Promise<ApiCall> => {
  const response = await fetch(`${app.url}${path}`, {
    headers: { ...headers, ...(key === undefined ? {} : { Authorization: `Bearer ${key}` }) },
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  const text = bytes.toString('utf8');
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, text, bytes, body };
};

export interface LedgerRowOverrides {
  readonly id?: string;
  readonly preset?: string;
  readonly profile?: string;
  readonly status?: 'queued' | 'completed' | 'failed' | 'timed_out' | 'cancelled';
  readonly apiKeyId?: string | null;
  readonly sessionId?: string | null;
  /** SQL default (the statement's now()) when absent. */
  readonly createdAt?: string;
}

/**
 * A ledger row written directly, as a past run would have left it; service_version is left to the column
 * default, as for every row written before migration 0008.
 */
export const insertLedgerRow = async (pool: DatabasePool, accountId: string, overrides: LedgerRowOverrides = {}): Promise<string> => {
  const id = overrides.id ?? randomUUID();
  const status = overrides.status ?? 'completed';
  await pool.query(sql.type(z.object({}))`
    INSERT INTO simulations (id, account_id, api_key_id, session_id, preset, profile, seed, num_interactions, status, period_start,
      created_at, finished_at, compute_ms, charged_interactions)
    VALUES (${id}, ${accountId}, ${overrides.apiKeyId ?? null}, ${overrides.sessionId ?? null}, ${overrides.preset ?? 'finance'},
      ${overrides.profile ?? 'balanced_investor'}, 7, 10, ${status}, date_trunc('month', now()),
      coalesce(${overrides.createdAt ?? null}::timestamptz, now()),
      CASE WHEN ${status} = 'queued' THEN NULL ELSE now() END, CASE WHEN ${status} = 'completed' THEN 3 ELSE NULL END,
      CASE WHEN ${status} = 'completed' THEN 10 ELSE NULL END)
  `);
  return id;
};

/** Every page of the history, following next_cursor until it is null. */
export const walkHistory = async (
  app: TestApp,
  key: string,
  query: string,
  onPage: (page: any) => Promise<void> = async () => {},
): Promise<any[]> => {
  const runs: any[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 10_000; pages += 1) {
    const separator = query === '' ? '' : '&';
    const path: string = `/v1/simulations?${query}${cursor === null ? '' : `${separator}cursor=${encodeURIComponent(cursor)}`}`;
    const page = await getWithKey(app, path, key);
    if (page.status !== 200) {
      throw new Error(`history page answered ${page.status}: ${page.text}`);
    }
    runs.push(...page.body.data);
    await onPage(page.body);
    cursor = page.body.next_cursor;
    if (cursor === null) {
      return runs;
    }
  }
  throw new Error('the history never ended');
};
