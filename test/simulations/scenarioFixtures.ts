import type { TestApp } from '../helpers/startTestApp.ts';
import { type HttpAnswer, sendRequest } from '../bulk/httpRequest.ts';

export const ACCEPT = { json: 'application/json', ndjson: 'application/x-ndjson', csv: 'text/csv', parquet: 'application/vnd.apache.parquet' } as const;
export type Format = keyof typeof ACCEPT;

/** A market crash on sequence 1 from its 20th record for 10 records, intensity left to its default. */
export const CRASH = { type: 'market_crash', sequence: 1, at_step: 20, duration: 10 };
/** The echo of CRASH: the validated object, its keys in the wire's order, intensity filled in. */
export const CRASH_ECHO = '{"events":[{"type":"market_crash","sequence":1,"at_step":20,"duration":10,"intensity":1}]}';

/** A small engine-3 finance request with CRASH; `extra` overrides any field (undefined drops it). */
export const financeWithCrash = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  preset: 'finance',
  num_interactions: 50,
  seed: 7,
  engine_version: '3',
  scenario: { events: [CRASH] },
  ...extra,
});

/** POST /v1/simulations over node:http (no coding asked for or decoded), in a format, with optional headers. */
export const postAs = (app: TestApp, key: string, body: unknown, format: Format = 'json', headers: Record<string, string> = {}): Promise<HttpAnswer> =>
  sendRequest(`${app.url}/v1/simulations`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}`, Accept: ACCEPT[format], ...headers },
    body: JSON.stringify(body),
  });
