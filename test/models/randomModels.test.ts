import test from 'ava';
import { generateRecords } from '../../shared/engine/generateRecords.ts';
import { writeRecordChunks } from '../../shared/engine/writeRecordChunks.ts';
import { writeRecordsJson } from '../../shared/engine/writeRecordsJson.ts';
import { checkModelDefinition, compileModel } from '../../shared/models/index.ts';
import { writeParquetChunks } from '../../shared/parquet/writeParquetChunks.ts';
import { readParquet } from '../parquet/readParquet.ts';

// Properties over many random definitions built from the grammar (a fixed-seed generator, so a failure
// names a case that replays): the checker never throws, accepts every well-typed definition, and every
// writer prints what generateRecords gives, whatever the expressions compute (NaN, infinities, -0).

function cases(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const STATES = ['A', 'B', 'C'];

function generator(random: () => number, names: readonly string[], stateful = true) {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const number = (depth: number): string => {
    if (depth <= 0 || random() < 0.25) return pick([() => String(Math.round(random() * 100) / 10), () => pick(names), () => 'step', () => 'intensity', () => '-0'])();
    return pick([
      () => `${number(depth - 1)} ${pick(['+', '-', '*', '/', '%', '**'])} ${number(depth - 1)}`,
      () => `-(${number(depth - 1)})`,
      () => `(${boolean(depth - 1)} ? ${number(depth - 1)} : ${number(depth - 1)})`,
      () => `${pick(['abs', 'exp', 'log', 'sqrt', 'floor', 'ceil', 'round', 'exponential', 'poisson', 'bernoulli'])}(${number(depth - 1)})`,
      () => `${pick(['min', 'max', 'pow', 'round', 'uniform', 'integer', 'normal', 'lognormal', 'gamma', 'beta'])}(${number(depth - 1)}, ${number(depth - 1)})`,
      () => `clamp(${number(depth - 1)}, ${number(depth - 1)}, ${number(depth - 1)})`,
    ])();
  };
  const boolean = (depth: number): string => {
    if (depth <= 0 || random() < 0.3) {
      const leaves = [() => 'true', () => "event == ''", () => `${number(0)} > 1`];
      if (stateful) leaves.push(() => `state == '${pick(STATES)}'`, () => `prev_state != '${pick(STATES)}'`);
      return pick(leaves)();
    }
    return pick([
      () => `${number(depth - 1)} ${pick(['<', '<=', '>', '>=', '==', '!='])} ${number(depth - 1)}`,
      () => `${boolean(depth - 1)} ${pick(['&&', '||'])} ${boolean(depth - 1)}`,
      () => `!(${boolean(depth - 1)})`,
    ])();
  };
  const string = (depth: number): string =>
    depth <= 0 || random() < 0.3
      ? pick([() => "'x y'", () => 'state', () => 'event', () => "'q\\'\"'", () => "'é,\n'"])()
      : pick([() => `(${boolean(depth - 1)} ? ${string(depth - 1)} : ${string(depth - 1)})`, () => `choice([${string(depth - 1)}, 'z'], [${number(depth - 1)}, 1])`])();
  return { number, boolean, string, pick };
}

test('random well-typed definitions check valid, and every writer prints what generateRecords gives', async (t) => {
  const random = cases(20_261_127);
  for (let c = 0; c < 60; c++) {
    const params = ['p', 'q'];
    const g = generator(random, [...params, 'v', 'w']);
    // Initial weights and set values see neither the state nor the variables (docs/models.md).
    const bare = generator(random, params, false);
    const fieldNames = ['f0', 'f1', 'f2', 'f3'];
    const input = {
      description: `random case ${c}`,
      states: STATES,
      initial: { A: bare.number(2), B: 1 },
      terminal: random() < 0.5 ? ['C'] : [],
      max_steps: 1 + Math.floor(random() * 20),
      profiles: { one: { p: random() * 3, q: -random() }, two: { p: 10, q: 0.5 } },
      variables: [
        { name: 'v', initial: generator(random, params).number(2), next: g.number(3) },
        { name: 'w', initial: generator(random, [...params, 'v']).number(2), next: g.number(3) },
      ],
      transitions: { A: { B: g.number(2), C: g.number(1) }, B: { A: g.number(2), C: 0.1 } },
      fields: fieldNames.map((name, i) => {
        const type = g.pick(['integer', 'number', 'string'] as const);
        // A number reads the field before it (of any type: a value equals itself).
        const value = type === 'string' ? g.string(3) : `${g.number(3)}${i > 0 ? ` + (${fieldNames[i - 1]!} == ${fieldNames[i - 1]!} ? 0 : 1)` : ''}`;
        return { name, type, value, ...(type === 'number' && random() < 0.5 ? { decimals: Math.floor(random() * 13) } : {}) };
      }),
      events: [{ type: 'bump', description: 'a bump', set: { p: bare.number(2) } }],
    };
    const check = checkModelDefinition(input);
    t.deepEqual(check.issues, [], `case ${c}: ${JSON.stringify(input)}`);
    if (!check.valid) continue;
    const model = compileModel(`case_${c}`, check.definition!);
    const run = { model, profile: c % 2 === 0 ? 'one' : 'two', seed: c, numInteractions: 150, scenario: { events: [{ type: 'bump', sequence: 'all' as const, at_step: 2, duration: 3, intensity: 2 }] } };
    const records = generateRecords(run);
    t.is(writeRecordsJson(run).toString('utf8'), JSON.stringify(records), `case ${c}`);
    const ndjson = Buffer.concat([...writeRecordChunks(run, 'ndjson')]).toString('utf8').trimEnd().split('\n');
    t.deepEqual(ndjson.map((line) => JSON.parse(line) as unknown), records, `case ${c}`);
    if (c % 6 === 0) {
      const parquet = await readParquet(Buffer.concat([...writeParquetChunks(run, { chunkBytes: Infinity })]));
      t.deepEqual(parquet.records, JSON.parse(JSON.stringify(records)) as unknown, `case ${c} parquet`);
    }
  }
});

test('random text never makes the checker throw: it answers issues', (t) => {
  const random = cases(7);
  const alphabet = "ab_(),.[]'\"+-*/%<>=!&|?: 0123456789eE\\`{}$#@^~;";
  for (let c = 0; c < 500; c++) {
    const length = Math.floor(random() * 40);
    let text = '';
    for (let i = 0; i < length; i++) text += alphabet[Math.floor(random() * alphabet.length)]!;
    const check = checkModelDefinition({ description: 'd', states: ['A'], initial: 'A', max_steps: 1, profiles: { p: { a: 1 } }, transitions: {}, fields: [{ name: 'x', type: 'number', value: text }] });
    t.true(check.valid || check.issues.length > 0);
  }
});
