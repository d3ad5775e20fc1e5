import test from 'ava';
import { readFileSync } from 'node:fs';
import { writeRecordChunks } from '../../shared/engine/writeRecordChunks.ts';
import { writeRecordsJson } from '../../shared/engine/writeRecordsJson.ts';
import { generateRecords } from '../../shared/engine/generateRecords.ts';
import { writeParquetChunks } from '../../shared/parquet/writeParquetChunks.ts';
import { canonicalModelJson, modelCatalog, modelDigest, sampleModel } from '../../shared/models/index.ts';
import type { ModelDefinition } from '../../shared/models/index.ts';
import { readParquet } from '../parquet/readParquet.ts';
import { compiled, definition, run, sequences } from './helpers/modelFixtures.ts';

// A compiled model runs wherever a preset runs (docs/models.md#running-a-model): the same records from every
// writer, reproducible, prefix-stable, with engine 3's matched counterfactuals.

const SUBSCRIPTION = definition({
  description: 'a subscription, its revenue and a label with characters that need escaping',
  states: ['Trial', 'Active', 'PastDue', 'Churned'],
  initial: { Trial: 0.9, Active: 0.1 },
  terminal: ['Churned'],
  max_steps: 40,
  profiles: { smb: { convert: 0.3, churn: 0.05, price: 49 }, enterprise: { convert: 0.5, churn: 0.01, price: 499 } },
  variables: [{ name: 'mrr', initial: 0, next: "state == 'Active' ? price * (1 + normal(0, 0.05)) : 0" }],
  transitions: { Trial: { Active: 'convert', Churned: 0.1 }, Active: { PastDue: 'churn * 2' }, PastDue: { Active: 0.5, Churned: 0.3 } },
  fields: [
    { name: 'revenue', type: 'number', value: 'mrr', decimals: 2 },
    { name: 'seats', type: 'integer', value: "state == 'Trial' ? 1 : poisson(5)" },
    { name: 'plan', type: 'string', value: "choice(['basic', 'pro, \"annual\"', 'ünïcode'], [0.6, 0.3, 0.1])" },
    { name: 'ratio', type: 'number', value: 'seats > 3 ? revenue / seats : 0 / 0' },
  ],
  events: [
    { type: 'price_hike', description: 'prices rise', set: { price: 'price * (1 + 0.2 * intensity)', churn: 'churn * 3' } },
    { type: 'outage', description: 'the service is down', enter: 'PastDue' },
  ],
});

const model = compiled(SUBSCRIPTION, 'subscription');
const input = (numInteractions: number, extra: object = {}) => ({ model, profile: 'smb', seed: 42, numInteractions, ...extra });

test('JSON, NDJSON, CSV and Parquet carry the same records, nullable numbers and escaped strings included', async (t) => {
  const records = generateRecords(input(500));
  t.true(records.some((r) => r.ratio === null) && records.some((r) => typeof r.ratio === 'number'));
  t.true(records.some((r) => r.plan === 'pro, "annual"') && records.some((r) => r.plan === 'ünïcode'));
  const json = writeRecordsJson(input(500)).toString('utf8');
  t.deepEqual(JSON.parse(json), records);
  t.is(json, JSON.stringify(records));
  const chunks = Buffer.concat([...writeRecordChunks(input(500), 'json', { chunkBytes: 4096 })]).toString('utf8');
  t.is(chunks, json);
  const ndjson = Buffer.concat([...writeRecordChunks(input(500), 'ndjson')]).toString('utf8');
  t.deepEqual(
    ndjson.trimEnd().split('\n').map((line) => JSON.parse(line) as unknown),
    records,
  );
  const csv = Buffer.concat([...writeRecordChunks(input(500), 'csv')]).toString('utf8');
  const lines = csv.split('\r\n');
  t.is(lines[0], 'sequence_id,interaction_id,event_time,state,revenue,seats,plan,ratio,scenario_event');
  const quoted = records.findIndex((r) => r.plan === 'pro, "annual"');
  t.true(lines[quoted + 1]!.includes(',"pro, ""annual""",'));
  const nullRatio = records.findIndex((r) => r.ratio === null);
  t.regex(lines[nullRatio + 1]!, /,,$/);

  const parquet = await readParquet(Buffer.concat([...writeParquetChunks(input(500), { chunkBytes: Infinity })]));
  t.deepEqual(parquet.records, records);
  t.like(
    Object.fromEntries(parquet.columns.map((c) => [c.name, [c.type, c.repetition]])),
    { revenue: ['DOUBLE', 'OPTIONAL'], seats: ['INT64', 'OPTIONAL'], plan: ['BYTE_ARRAY', 'REQUIRED'], ratio: ['DOUBLE', 'OPTIONAL'] },
  );
});

test('a run is reproducible and prefix-stable; profiles and seeds differ', (t) => {
  const long = generateRecords(input(3000));
  t.deepEqual(generateRecords(input(3000)), long);
  t.deepEqual(generateRecords(input(1234)), long.slice(0, 1234));
  t.notDeepEqual(generateRecords({ ...input(300), seed: 43 }), long.slice(0, 300));
  t.notDeepEqual(generateRecords({ ...input(300), profile: 'enterprise' }), long.slice(0, 300));
  // A recompiled model (a worker's cache miss) draws the same records: randomness is keyed by the digest.
  t.deepEqual(generateRecords({ ...input(3000), model: compiled(SUBSCRIPTION, 'subscription') }), long);
});

test('matched counterfactuals: untargeted sequences identical, a targeted one identical before its event', (t) => {
  const control = sequences(generateRecords(input(4000)));
  const scenario = {
    events: [
      { type: 'outage', sequence: 3, at_step: 4, duration: 3, intensity: 1 },
      { type: 'price_hike', sequence: 5, at_step: 2, duration: 10, intensity: 2 },
    ],
  };
  const treated = sequences(generateRecords(input(4000, { scenario })));
  const strip = (s: readonly Record<string, unknown>[]) => s.map(({ interaction_id: _, ...rest }) => rest);
  const whole = Math.min(control.length, treated.length) - 1;
  for (let i = 0; i < whole; i++) {
    const id = i + 1;
    if (id === 3 || id === 5) continue;
    t.deepEqual(strip(treated[i]!), strip(control[i]!), `sequence ${id}`);
  }
  t.deepEqual(strip(treated[2]!.slice(0, 3)), strip(control[2]!.slice(0, 3)));
  t.is(treated[2]![3]!.state, 'PastDue');
  t.is(treated[2]![3]!.scenario_event, 'outage');
  t.deepEqual(strip(treated[4]!.slice(0, 1)), strip(control[4]!.slice(0, 1)));
  // Only what the event targets changes: the same run with only the outage leaves sequence 5 as control.
  const outageOnly = sequences(generateRecords(input(4000, { scenario: { events: [scenario.events[0]!] } })));
  t.deepEqual(strip(outageOnly[4]!), strip(control[4]!));
});

test('a scenario names the model\'s event types only; models run on engine 3 and later', (t) => {
  t.throws(() => generateRecords(input(10, { scenario: { events: [{ type: 'market_crash', sequence: 1, at_step: 1, duration: 1, intensity: 1 }] } })), { message: /not one of price_hike, outage/ });
  t.throws(() => generateRecords(input(10, { serviceVersion: '2.0.0' })), { message: 'models need engine 3 or later, not 2.0.0' });
  t.is(generateRecords(input(10, { serviceVersion: '3.0.0' })).length, 10);
});

test('the digest is of the canonical JSON: key order does not matter except among profiles', (t) => {
  const reordered = Object.fromEntries(Object.entries(SUBSCRIPTION).reverse()) as unknown as ModelDefinition;
  t.is(modelDigest(reordered), model.digest);
  t.regex(model.digest, /^sha256:[0-9a-f]{64}$/);
  const canonical = canonicalModelJson(SUBSCRIPTION as unknown as ModelDefinition);
  // No whitespace outside strings: printing the parsed text again gives the same text.
  t.is(JSON.stringify(JSON.parse(canonical)), canonical);
  t.true(canonicalModelJson(SUBSCRIPTION as unknown as ModelDefinition).startsWith('{"description":'));
  const profilesSwapped = { ...SUBSCRIPTION, profiles: { enterprise: (SUBSCRIPTION.profiles as Record<string, unknown>).enterprise, smb: (SUBSCRIPTION.profiles as Record<string, unknown>).smb } };
  t.not(modelDigest(profilesSwapped as unknown as ModelDefinition), model.digest);
  // Transitions are drawn in the order of `states`, so their key order is not meaning.
  const transitionsSwapped = { ...SUBSCRIPTION, transitions: { PastDue: { Churned: 0.3, Active: 0.5 }, Active: { PastDue: 'churn * 2' }, Trial: { Churned: 0.1, Active: 'convert' } } };
  t.deepEqual(generateRecords({ ...input(500), model: compiled(transitionsSwapped, 'subscription') }), generateRecords(input(500)));
});

test('the catalog block describes the model as the Preset resource describes a preset', (t) => {
  const catalog = modelCatalog(model);
  t.is(catalog.default_profile, 'smb');
  t.deepEqual(catalog.supported_profiles, ['smb', 'enterprise']);
  t.deepEqual(catalog.supported_states, ['Trial', 'Active', 'PastDue', 'Churned']);
  t.deepEqual(
    catalog.record_fields.map((f) => [f.name, f.type, f.nullable]),
    [
      ['sequence_id', 'integer', false],
      ['interaction_id', 'integer', false],
      ['state', 'string', false],
      ['revenue', 'number', true],
      ['seats', 'integer', true],
      ['plan', 'string', false],
      ['ratio', 'number', true],
      ['scenario_event', 'string', true],
    ],
  );
  t.deepEqual(catalog.state_transitions, { Trial: ['Trial', 'Active', 'Churned'], Active: ['Active', 'PastDue'], PastDue: ['Active', 'PastDue', 'Churned'], Churned: [] });
  t.deepEqual(catalog.scenario_events, [
    { type: 'price_hike', description: 'prices rise', effect: 'prices rise' },
    { type: 'outage', description: 'the service is down', effect: 'the service is down' },
  ]);
  t.deepEqual(catalog.engine_versions, ['4.0.0', '3.0.0']);
});

test('the sample: the first 20 records of seed 1 with the default profile, and a summary over 10,000', (t) => {
  const sample = sampleModel(model);
  t.deepEqual(sample.records, run(model, 20, { seed: 1, profile: 'smb' }));
  t.is(sample.summary.records, 10_000);
  const shares = Object.values(sample.summary.states);
  t.true(Math.abs(shares.reduce((a, b) => a + b, 0) - 1) < 1e-9);
  const all = run(model, 10_000, { seed: 1 });
  const revenue = all.map((r) => r.revenue as number);
  t.is(sample.summary.fields.revenue!.max, Math.max(...revenue));
  t.is(sample.summary.fields.ratio!.nulls, all.filter((r) => r.ratio === null).length);
  t.deepEqual(sample.summary.fields.plan, { mean: null, min: null, max: null, nulls: 0 });
});

test('the bench\'s finance-sized model prints exactly JSON.stringify of its records (rounded decimals take the digit tables)', (t) => {
  const finance = compiled(JSON.parse(readFileSync(new URL('../../bench/financeSizedModel.json', import.meta.url), 'utf8')) as Record<string, unknown>, 'finance_sized');
  for (const profile of ['balanced', 'aggressive']) {
    const run = { model: finance, profile, seed: 9, numInteractions: 5000 };
    t.is(writeRecordsJson(run).toString('utf8'), JSON.stringify(generateRecords(run)));
  }
});

test('extreme numbers print as JSON.stringify prints them; integers beyond 2^53 have no exact value and are null', (t) => {
  const extremes = compiled(
    definition({
      fields: [
        { name: 'tiny', type: 'number', value: '1e-7 * rate' },
        { name: 'huge', type: 'number', value: '1e21 * rate' },
        { name: 'big_rounded', type: 'number', value: '123456789.123456789 * rate', decimals: 8 },
        { name: 'neg_zero', type: 'number', value: '-0 * rate', decimals: 2 },
        { name: 'big_integer', type: 'integer', value: '2 ** 60 * rate' },
        { name: 'safe_integer', type: 'integer', value: '(2 ** 53 - 1) * rate' },
        { name: 'twelve', type: 'number', value: '1 / 3 * rate', decimals: 12 },
      ],
    }),
  );
  const runInput = { model: extremes, profile: 'base', seed: 1, numInteractions: 3 };
  const records = generateRecords(runInput);
  t.is(writeRecordsJson(runInput).toString('utf8'), JSON.stringify(records));
  t.like(records[0], { tiny: 1e-7, huge: 1e21, big_rounded: 123456789.12345679, neg_zero: 0, big_integer: null, safe_integer: 2 ** 53 - 1, twelve: 0.333333333333 });
  const csv = Buffer.concat([...writeRecordChunks(runInput, 'csv')]).toString('utf8').split('\r\n')[1];
  t.is(csv, '1,1,2026-01-01T00:00:00.000Z,A,1e-7,1e+21,123456789.12345679,0,,9007199254740991,0.333333333333,');
});
