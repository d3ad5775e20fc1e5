// `node bench/streamDigests.ts` (docs/benchmarks/streams.md): SHA-256 digests of what streams deliver for
// fixed inputs, so a change to the delivery path can show that every byte stayed the same. For each
// stream: the SSE body from its first byte up to (not including) the `event: end` message, read from the
// real API process (the end message holds the stream's id and instants, which differ per run, so only its
// `status` and `delivered` are printed), and the envelopes' JSON as a worker makes them for a webhook
// batch (worker/streams/runStreamChunk.ts, joined by newlines).
import { createHash } from 'node:crypto';
import http from 'node:http';
import { sql } from 'slonik';
import { z } from 'zod';
import { createDatabasePool } from '../shared/db/createDatabasePool.ts';
import { loadStreamInput } from '../shared/streams/loadStreamInput.ts';
import { findStreamById } from '../shared/db/queries/streams.ts';
import { runStreamChunk } from '../worker/streams/runStreamChunk.ts';
import { startBenchStack } from './startBenchStack.ts';

const DISORDER = { late_share: 0.3, max_delay_s: 3600, duplicate_share: 0.15 };
const START = '2026-01-05T20:00:00.000Z';
const CASES: readonly { name: string; body: Record<string, unknown> }[] = [
  { name: 'mobile_app', body: { preset: 'mobile_app', num_interactions: 20_000, population: 1000, seed: 5 } },
  { name: 'mobile_app, disorder', body: { preset: 'mobile_app', num_interactions: 20_000, population: 1000, seed: 5, disorder: DISORDER } },
  { name: 'finance', body: { preset: 'finance', num_interactions: 20_000, population: 10_000, seed: 6 } },
  { name: 'finance, disorder', body: { preset: 'finance', num_interactions: 20_000, population: 10_000, seed: 6, disorder: DISORDER } },
  {
    name: 'education, scenario, disorder',
    body: {
      preset: 'education',
      num_interactions: 20_000,
      population: 2000,
      seed: 7,
      disorder: DISORDER,
      scenario: { events: [{ type: 'fatigue', sequence: 'all', at_time: '2026-01-06T10:00:00.000Z', duration: 20 }] },
    },
  },
  { name: 'healthcare, disorder', body: { preset: 'healthcare', num_interactions: 20_000, population: 2000, seed: 8, disorder: DISORDER } },
];

const stack = await startBenchStack();
const pool = await createDatabasePool(stack.database.url);
await pool.query(sql.type(z.object({}))`UPDATE plans SET max_concurrent_streams = 1000, monthly_interactions = 1000000000000 WHERE name = 'enterprise'`);

/** The SSE body's bytes, as the reader receives them, until the server ends it. */
const readBody = (id: string): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    http
      .get(`${stack.apiUrl}/v1/streams/${id}/events`, { headers: { Authorization: `Bearer ${stack.key}` } }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve(Buffer.concat(chunks)));
        response.on('error', reject);
      })
      .on('error', reject);
  });

const sha = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');

try {
  console.log('| Stream | Events | SSE body before `event: end` (SHA-256) | Webhook JSON (SHA-256) | End |');
  console.log('|---|---|---|---|---|');
  for (const { name, body } of CASES) {
    const response = await fetch(`${stack.apiUrl}/v1/streams`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${stack.key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ ...body, speed: 100_000, start_time: START }),
    });
    if (response.status !== 201) throw new Error(`POST /v1/streams answered ${response.status}: ${await response.text()}`);
    const { id } = (await response.json()) as { id: string };
    const bytes = await readBody(id);
    const cut = bytes.indexOf('event: end\n');
    if (cut < 0) throw new Error(`${name}: no end message`);
    const end = JSON.parse(bytes.subarray(cut).toString('utf8').split('\n')[1]!.slice('data: '.length)) as { status: string; delivered: number };
    const events = bytes.subarray(0, cut).toString('utf8').split('\nid: ').length - 1;
    const row = await findStreamById(pool, id);
    const chunk = runStreamChunk({ streamId: id, input: await loadStreamInput(pool, row!), after: 0, count: 1_000_000, withJson: true });
    console.log(`| ${name} | ${events} | ${sha(bytes.subarray(0, cut))} | ${sha(chunk.json.join('\n'))} | ${end.status}, delivered ${end.delivered} |`);
  }
} finally {
  await pool.end();
  await stack.close();
}
