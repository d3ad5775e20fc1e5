import test from 'ava';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import type { TestApp } from '../helpers/startTestApp.ts';
import { useFileStack } from '../helpers/useFileStack.ts';
import { getWithKey } from '../history/historyFixtures.ts';
import { readParquet } from '../parquet/readParquet.ts';
import { postSimulation, rawData } from './postSimulation.ts';

// Event time (docs/api.md#event-time) through the real stack: event_time on every record, each preset's
// clock (the calendar and the cycles), start_time, order "time" over a population, the prefix rule,
// reproducibility and per-sequence matched counterfactuals in both orders, every format, the echo.
let app: TestApp;
let key: string;

useFileStack(
  test,
  async (started) => {
    app = started;
    const account = await buildAccount(app.services.pool, { plan: 'enterprise' });
    ({ key } = await buildApiKey(app.services.pool, account.id));
  },
  { threads: 2 },
);

type Row = Record<string, string | number | null>;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const ms = (row: Row): number => Date.parse(String(row.event_time));
const DAY = 86_400_000;

const run = async (body: Record<string, unknown>, accept?: string) => {
  const response = await postSimulation(app, body, { key, ...(accept === undefined ? {} : { headers: { Accept: accept } }) });
  return response;
};

const bySequence = (rows: readonly Row[]): Map<number, Row[]> => {
  const sequences = new Map<number, Row[]>();
  for (const row of rows) {
    const id = Number(row.sequence_id);
    sequences.set(id, [...(sequences.get(id) ?? []), row]);
  }
  return sequences;
};

const withoutId = (rows: readonly Row[]): Row[] => rows.map(({ interaction_id: _, ...rest }) => rest);

/** Within every sequence, event_time strictly increases. */
const assertIncreasing = (t: { true: (value: boolean, message?: string) => void }, rows: readonly Row[]): void => {
  for (const [id, records] of bySequence(rows)) {
    for (let i = 1; i < records.length; i++) t.true(ms(records[i]!) > ms(records[i - 1]!), `sequence ${id} record ${i}`);
  }
};

test('engine 4 is the default: event_time after interaction_id on every record, ISO 8601 UTC with milliseconds, never earlier than start_time; the result echoes the defaults', async (t) => {
  for (const preset of ['finance', 'education', 'healthcare', 'mobile_app']) {
    const response = await run({ preset, num_interactions: 400, seed: 5 });
    t.is(response.status, 200, response.text);
    t.is(response.body.metadata.service_version, '4.0.0');
    t.is(response.body.start_time, '2026-01-01T00:00:00.000Z');
    t.is(response.body.order, 'sequence');
    t.is(response.body.population, 100);
    t.true(response.text.includes(',"model":null,') && response.text.includes(',"seed":5,"start_time":"2026-01-01T00:00:00.000Z","order":"sequence","population":100,"data":['));
    t.true(response.text.includes('],"scenario":null,"metadata":'));
    const rows = response.body.data as Row[];
    for (const row of rows) {
      t.deepEqual(Object.keys(row).slice(0, 4), ['sequence_id', 'interaction_id', 'event_time', 'state']);
      t.regex(String(row.event_time), ISO);
      t.true(ms(row) >= Date.UTC(2026, 0, 1));
    }
    assertIncreasing(t, rows);
  }
});

test('finance records one trading day at a time, Monday to Friday, at the close (21:00:00.000Z)', async (t) => {
  const response = await run({ preset: 'finance', num_interactions: 3000, seed: 11, start_time: '2027-03-10T12:00:00Z' });
  t.is(response.status, 200, response.text);
  t.is(response.body.start_time, '2027-03-10T12:00:00.000Z');
  for (const records of bySequence(response.body.data).values()) {
    for (let i = 0; i < records.length; i++) {
      const time = new Date(ms(records[i]!));
      t.true(time.getUTCDay() >= 1 && time.getUTCDay() <= 5, String(records[i]!.event_time));
      t.is(String(records[i]!.event_time).slice(10), 'T21:00:00.000Z');
      t.true(ms(records[i]!) >= Date.UTC(2027, 2, 10, 12));
      if (i > 0) {
        const days = (ms(records[i]!) - ms(records[i - 1]!)) / DAY;
        t.true(days === 1 || (days === 3 && time.getUTCDay() === 1), `${records[i - 1]!.event_time} -> ${records[i]!.event_time}`);
      }
    }
  }
});

test('education: each item after the previous answer and a think time, study sessions on separate days', async (t) => {
  const response = await run({ preset: 'education', num_interactions: 4000, seed: 3 });
  t.is(response.status, 200, response.text);
  let sessions = 0;
  for (const records of bySequence(response.body.data).values()) {
    for (let i = 1; i < records.length; i++) {
      const gap = ms(records[i]!) - ms(records[i - 1]!);
      const day = (row: Row): number => Math.floor(ms(row) / DAY);
      if (gap > 30 * 60_000) {
        sessions++;
        t.true(day(records[i]!) > day(records[i - 1]!), 'a new session opens on a later day');
      } else {
        t.true(gap > Number(records[i - 1]!.response_time_ms), 'the next item comes after the answer');
        t.is(day(records[i]!), day(records[i - 1]!), 'a session stays within its day');
      }
    }
  }
  t.true(sessions > 100);
});

test('healthcare: vitals every 12 h when Stable and every 15 min when Critical (±10%)', async (t) => {
  const response = await run({ preset: 'healthcare', profile: 'critical_care', num_interactions: 3000, seed: 8 });
  t.is(response.status, 200, response.text);
  const gaps: Record<string, number[]> = {};
  for (const records of bySequence(response.body.data).values()) {
    for (let i = 1; i < records.length; i++) (gaps[String(records[i - 1]!.state)] ??= []).push(ms(records[i]!) - ms(records[i - 1]!));
  }
  const within = (values: number[] | undefined, interval: number) => values !== undefined && values.length > 0 && values.every((gap) => gap >= 0.9 * interval - 1 && gap <= 1.1 * interval + 1);
  t.true(within(gaps.Critical, 15 * 60_000));
  t.true(within(gaps.Stable, 12 * 3_600_000));
});

test('mobile_app: event_time minus the session\'s opening equals session_duration_s; sessions follow a daily and a weekly cycle with heavy-tailed gaps', async (t) => {
  const response = await run({ preset: 'mobile_app', num_interactions: 40_000, seed: 21 });
  t.is(response.status, 200, response.text);
  let evening = 0;
  let night = 0;
  let weekend = 0;
  let starts = 0;
  const gaps: number[] = [];
  for (const records of bySequence(response.body.data).values()) {
    let opened = 0;
    for (let i = 0; i < records.length; i++) {
      const row = records[i]!;
      if (row.session_duration_s === 0) {
        opened = ms(row);
        starts++;
        const time = new Date(opened);
        if (time.getUTCHours() >= 18) evening++;
        else if (time.getUTCHours() < 6) night++;
        if (time.getUTCDay() === 0 || time.getUTCDay() === 6) weekend++;
        if (i > 0) gaps.push(opened - ms(records[i - 1]!));
      }
      t.is(ms(row) - opened, Math.round(Number(row.session_duration_s) * 1000));
    }
  }
  t.true(evening > 3 * night, `evening ${evening}, night ${night}`);
  t.true(weekend / 2 < 0.9 * ((starts - weekend) / 5), `weekend ${weekend} of ${starts}`);
  gaps.sort((a, b) => a - b);
  const median = gaps[Math.floor(gaps.length / 2)]!;
  const mean = gaps.reduce((sum, gap) => sum + gap, 0) / gaps.length;
  t.true(median >= 3_600_000 && median <= 3 * DAY, `median gap ${median} ms`);
  t.true(mean >= 1.5 * median);
});

test('order "time": the population merged in event_time order (ties by sequence_id), interaction_id numbering that order; each sequence equals its records in order "sequence"', async (t) => {
  for (const preset of ['finance', 'mobile_app']) {
    const timed = await run({ preset, num_interactions: 3000, seed: 9, order: 'time', population: 40 });
    t.is(timed.status, 200, timed.text);
    t.is(timed.body.order, 'time');
    t.is(timed.body.population, 40);
    const rows = timed.body.data as Row[];
    rows.forEach((row, i) => t.is(row.interaction_id, i + 1));
    for (let i = 1; i < rows.length; i++) {
      const a = rows[i - 1]!;
      const b = rows[i]!;
      t.true(ms(a) < ms(b) || (ms(a) === ms(b) && Number(a.sequence_id) < Number(b.sequence_id)), `${preset} ${i}`);
    }
    let switches = 0;
    for (let i = 1; i < rows.length; i++) if (rows[i]!.sequence_id !== rows[i - 1]!.sequence_id) switches++;
    t.true(switches > rows.length / 10, `subjects interleave: ${switches} switches`);
    assertIncreasing(t, rows);
    // The same sequences, laid out one after another: per sequence the same records but interaction_id.
    const ordered = await run({ preset, num_interactions: 20_000, seed: 9, population: 40 });
    const inTime = bySequence(rows);
    const inSequence = bySequence(ordered.body.data);
    let compared = 0;
    for (const [id, records] of inTime) {
      // A sequence may be cut by either run's end: what both hold of it is the same.
      const other = inSequence.get(id);
      if (other === undefined) continue;
      const n = Math.min(records.length, other.length);
      t.deepEqual(withoutId(records.slice(0, n)), withoutId(other.slice(0, n)), `${preset} sequence ${id}`);
      compared++;
    }
    t.true(compared > 5, `${preset}: ${compared} sequences compared`);
  }
});

test('the prefix rule and reproducibility hold in order "time" and order "sequence"', async (t) => {
  for (const order of ['time', 'sequence']) {
    const body = { preset: 'healthcare', seed: 4, order, population: 25, start_time: '2030-06-01T00:00:00.000Z' };
    const small = await run({ ...body, num_interactions: 700 });
    const large = await run({ ...body, num_interactions: 2000 });
    const again = await run({ ...body, num_interactions: 2000 });
    t.is(small.status, 200, small.text);
    t.deepEqual(large.body.data.slice(0, 700), small.body.data, order);
    t.is(rawData(again.text), rawData(large.text), order);
  }
});

test('matched counterfactuals per sequence hold in order "time": only the targeted sequence changes, and only from its event on', async (t) => {
  const body = { preset: 'mobile_app', profile: 'casual_user', seed: 12, num_interactions: 6000, order: 'time', population: 30 };
  const plain = await run(body);
  const shocked = await run({ ...body, scenario: { events: [{ type: 'churn_wave', sequence: 3, at_step: 5, duration: 50 }] } });
  t.is(shocked.status, 200, shocked.text);
  const a = bySequence(plain.body.data);
  const b = bySequence(shocked.body.data);
  let compared = 0;
  for (const [id, x] of a) {
    const y = b.get(id);
    if (y === undefined) continue;
    if (id === 3) {
      t.deepEqual(withoutId(y.slice(0, 4)), withoutId(x.slice(0, 4)), 'identical before at_step');
      t.is(y.at(-1)!.state, 'Churned');
      continue;
    }
    // Either run's end may cut a sequence: what both hold of it is the same, and one that ended in both
    // (Churned) has the same length.
    const n = Math.min(x.length, y.length);
    t.deepEqual(withoutId(y.slice(0, n)), withoutId(x.slice(0, n)), `sequence ${id}`);
    if (x.at(-1)!.state === 'Churned' && y.at(-1)!.state === 'Churned') t.is(x.length, y.length, `sequence ${id}`);
    compared++;
  }
  t.true(compared > 20, `${compared} sequences compared`);
});

test('a time-ordered run streams in every format with the same records', async (t) => {
  const body = { preset: 'education', seed: 2, num_interactions: 30_000, order: 'time', population: 500 };
  const json = await run(body);
  t.is(json.status, 200, json.text);
  const rows = json.body.data as Row[];
  const ndjson = await run(body, 'application/x-ndjson');
  t.deepEqual(ndjson.text.trimEnd().split('\n').map((line) => JSON.parse(line)), rows);
  const csv = await run(body, 'text/csv');
  const lines = csv.text.trimEnd().split('\r\n');
  t.is(lines[0], Object.keys(rows[0]!).join(','));
  t.deepEqual(lines.slice(1).map((line) => line.split(',')[2]), rows.map((row) => row.event_time));
  const parquet = await run(body, 'application/vnd.apache.parquet');
  t.is(parquet.status, 200);
  const file = await readParquet(parquet.bytes);
  t.deepEqual(file.records.map((row) => row.event_time), rows.map((row) => row.event_time));
  t.deepEqual(file.records[0], rows[0]);
});

test('start_time, order and population are refused by path: on engines before 4, out of bounds or malformed', async (t) => {
  const cases: [Record<string, unknown>, string][] = [
    [{ engine_version: '3', start_time: '2026-01-01T00:00:00.000Z' }, 'start_time'],
    [{ engine_version: '2', order: 'time' }, 'order'],
    [{ engine_version: '3', population: 5 }, 'population'],
    [{ start_time: '2026-01-01 00:00:00' }, 'start_time'],
    [{ start_time: '2026-02-30T00:00:00.000Z' }, 'start_time'],
    [{ start_time: '2026-01-01T00:00:00.000+01:00' }, 'start_time'],
    [{ order: 'random' }, 'order'],
    [{ population: 0 }, 'population'],
    [{ population: 10_001 }, 'population'],
  ];
  for (const [extra, path] of cases) {
    const response = await run({ preset: 'finance', num_interactions: 5, ...extra });
    t.is(response.status, 422, JSON.stringify(extra));
    t.is(response.body.error.details.code, 'validation_failed');
    t.true(
      response.body.error.details.issues.some((issue: { path: string }) => issue.path === path),
      `${JSON.stringify(extra)}: ${JSON.stringify(response.body.error.details.issues)}`,
    );
  }
  const edge = await run({ preset: 'finance', num_interactions: 5, population: 10_000, order: 'time' });
  t.is(edge.status, 200, edge.text);
});

test('history Runs carry start_time, order and population (null before engine 4), and a replay reproduces the run byte for byte', async (t) => {
  const first = await run({ preset: 'finance', num_interactions: 300, seed: 6, order: 'time', population: 7, start_time: '2026-05-04T09:30:00Z' });
  t.is(first.status, 200, first.text);
  const recorded = await getWithKey(app, `/v1/simulations/${first.body.simulation_id}`, key);
  t.is(recorded.status, 200);
  t.like(recorded.body, { start_time: '2026-05-04T09:30:00.000Z', order: 'time', population: 7, service_version: '4.0.0' });
  const replay = await getWithKey(app, `/v1/simulations/${first.body.simulation_id}/records`, key);
  t.is(replay.status, 200);
  t.deepEqual(replay.body.data, first.body.data);
  const older = await run({ preset: 'finance', num_interactions: 10, seed: 6, engine_version: '3' });
  t.false('start_time' in older.body);
  t.false(Object.keys(older.body.data[0]).includes('event_time'));
  const olderRun = await getWithKey(app, `/v1/simulations/${older.body.simulation_id}`, key);
  t.like(olderRun.body, { start_time: null, order: null, population: null });
});

test('a scenario event at_time starts at the first record of each targeted sequence at or after the instant, in both orders; at_time needs engine 4', async (t) => {
  const at = '2026-01-10T00:00:00Z';
  for (const order of ['sequence', 'time']) {
    const body = { preset: 'healthcare', profile: 'chronic_condition', seed: 31, num_interactions: 3000, order, population: 20 };
    const plain = await run(body);
    const shocked = await run({ ...body, scenario: { events: [{ type: 'missed_medication', sequence: 'all', at_time: at, duration: 5 }] } });
    t.is(shocked.status, 200, shocked.text);
    t.deepEqual(shocked.body.scenario.events[0], { type: 'missed_medication', sequence: 'all', at_time: '2026-01-10T00:00:00.000Z', duration: 5, intensity: 1 });
    const before = bySequence(plain.body.data);
    let labelled = 0;
    for (const [id, records] of bySequence(shocked.body.data)) {
      const first = records.findIndex((row) => ms(row) >= Date.parse(at));
      records.forEach((row, i) => {
        const inside = first >= 0 && i >= first && i < first + 5;
        t.is(row.scenario_event, inside ? 'missed_medication' : null, `${order} sequence ${id} record ${i}`);
        if (inside) labelled++;
      });
      // Before the event, the sequence is its counterfactual's.
      const n = first < 0 ? records.length : first;
      t.deepEqual(withoutId(records.slice(0, n)), withoutId(before.get(id)!.slice(0, n)));
    }
    t.true(labelled > 50, `${order}: ${labelled} labelled`);
  }
  const refused = await run({ preset: 'finance', num_interactions: 5, engine_version: '3', scenario: { events: [{ type: 'rally', sequence: 1, at_time: at, duration: 5 }] } });
  t.is(refused.status, 422);
  t.true(refused.body.error.details.issues.some((issue: { path: string }) => issue.path === 'scenario.events.0.at_time'), JSON.stringify(refused.body.error.details.issues));
  const both = await run({ preset: 'finance', num_interactions: 5, scenario: { events: [{ type: 'rally', sequence: 1, at_step: 2, at_time: at, duration: 5 }] } });
  t.is(both.status, 422);
});
