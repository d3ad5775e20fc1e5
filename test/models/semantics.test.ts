import { generateRecords } from '../../shared/engine/generateRecords.ts';
import test from 'ava';
import { compiled, definition, run, sequences, share } from './helpers/modelFixtures.ts';

// docs/models.md#semantics-of-one-sequence: one test per rule, each built so that another reading
// of the rule gives a different answer. Shares are measured over many sequences with tolerances far
// wider than their sampling error (a few thousandths) and far narrower than the gap to the other reading.

/** The state of every sequence's second record (the first transition drawn). */
function secondStates(transitions: Record<string, Record<string, unknown>>, initial: unknown = 'A'): unknown[] {
  const model = compiled(definition({ transitions, initial, max_steps: 2 }));
  return sequences(run(model, 40_000)).map((s) => s[1]!.state);
}

test('weights summing to 0.6 leave 0.4 to stay in the current state (not normalised)', (t) => {
  const states = secondStates({ A: { B: 0.6 } });
  t.true(Math.abs(share(states, 'B') - 0.6) < 0.015, `B ${share(states, 'B')}`);
  t.true(Math.abs(share(states, 'A') - 0.4) < 0.015, `A ${share(states, 'A')}`);
});

test('weights summing to 2 are scaled to sum 1: nothing stays', (t) => {
  const states = secondStates({ A: { B: 1.5, C: '0.5' } });
  t.true(Math.abs(share(states, 'B') - 0.75) < 0.015, `B ${share(states, 'B')}`);
  t.true(Math.abs(share(states, 'C') - 0.25) < 0.015, `C ${share(states, 'C')}`);
  t.is(share(states, 'A'), 0);
});

test('negative and non-finite weights count as 0', (t) => {
  const states = secondStates({ A: { B: -1, C: '1 / 0', D: 0.5 } });
  t.is(share(states, 'B'), 0);
  t.is(share(states, 'C'), 0);
  t.true(Math.abs(share(states, 'D') - 0.5) < 0.015);
  t.true(Math.abs(share(states, 'A') - 0.5) < 0.015);
});

test('a state absent from transitions stays', (t) => {
  const model = compiled(definition({ transitions: { B: { C: 1 } } }));
  t.true(run(model, 100).every((r) => r.state === 'A'));
});

test('initial weights are normalised', (t) => {
  const model = compiled(definition({ initial: { A: 1, B: '3' }, max_steps: 1 }));
  const states = run(model, 40_000).map((r) => r.state);
  t.true(Math.abs(share(states, 'B') - 0.75) < 0.015, `B ${share(states, 'B')}`);
  t.is(share(states, 'C'), 0);
});

test('variables update in list order: earlier names mean new values, own and later names previous ones', (t) => {
  const model = compiled(
    definition({
      variables: [
        { name: 'a', initial: 1, next: 'a + 1' },
        { name: 'b', initial: 'a * 10', next: 'a' },
        { name: 'c', initial: 0, next: 'd' },
        { name: 'd', initial: 5, next: 'd + 10' },
      ],
      fields: [
        { name: 'fa', type: 'integer', value: 'a' },
        { name: 'fb', type: 'integer', value: 'b' },
        { name: 'fc', type: 'integer', value: 'c' },
        { name: 'fd', type: 'integer', value: 'd' },
      ],
      max_steps: 3,
    }),
  );
  const [r1, r2, r3] = run(model, 3);
  // Step 1: initials, in order (b's initial reads a's new initial).
  t.like(r1, { fa: 1, fb: 10, fc: 0, fd: 5 });
  // Step 2: a = 2; b = a's new value 2; c = d's previous value 5; d = 15.
  t.like(r2, { fa: 2, fb: 2, fc: 5, fd: 15 });
  t.like(r3, { fa: 3, fb: 3, fc: 15, fd: 25 });
});

test('fields are computed in list order and read the earlier fields as written', (t) => {
  const model = compiled(
    definition({
      fields: [
        { name: 'x', type: 'number', value: 'step / 4', decimals: 0 },
        { name: 'y', type: 'number', value: 'x * 10 + step' },
      ],
      max_steps: 10,
    }),
  );
  const records = run(model, 6);
  // x = step / 4 rounded half away from zero; y reads the rounded x.
  t.deepEqual(
    records.map((r) => [r.x, r.y]),
    [
      [0, 1],
      [1, 12],
      [1, 13],
      [1, 14],
      [1, 15],
      [2, 26],
    ],
  );
});

test('a record is sequence_id, interaction_id, state, the fields in order, then scenario_event', (t) => {
  const model = compiled(definition({ fields: [{ name: 'zeta', type: 'integer', value: 1 }, { name: 'alpha', type: 'string', value: "'s'" }] }));
  // Engine 3's record (engine 4 adds event_time after interaction_id: test/engine/eventTime.test.ts).
  const [record] = generateRecords({ model, profile: model.engine.defaultProfile, seed: 7, numInteractions: 1, serviceVersion: '3.0.0' });
  t.deepEqual(Object.keys(record!), ['sequence_id', 'interaction_id', 'state', 'zeta', 'alpha', 'scenario_event']);
});

test('a number or integer field that is NaN or infinite is written as null', (t) => {
  const model = compiled(
    definition({
      fields: [
        { name: 'nan', type: 'number', value: 'log(-1)' },
        { name: 'inf', type: 'number', value: '1 / 0' },
        { name: 'ninf', type: 'integer', value: '-1 / 0' },
        { name: 'zero', type: 'integer', value: '0 / 0' },
        { name: 'ok', type: 'number', value: 'sqrt(4)' },
      ],
    }),
  );
  t.like(run(model, 1)[0], { nan: null, inf: null, ninf: null, zero: null, ok: 2 });
});

test('an integer field rounds half away from zero; decimals round a number half away from zero', (t) => {
  const model = compiled(
    definition({
      fields: [
        { name: 'a', type: 'integer', value: '-2.5' },
        { name: 'b', type: 'integer', value: '2.5' },
        { name: 'c', type: 'integer', value: '-0.5' },
        { name: 'd', type: 'integer', value: '1.4999' },
        { name: 'e', type: 'number', value: '1.25', decimals: 1 },
        { name: 'f', type: 'number', value: '-1.25', decimals: 1 },
        { name: 'g', type: 'number', value: '1 / 3' },
        { name: 'h', type: 'number', value: 'round(-2.5)' },
      ],
    }),
  );
  t.like(run(model, 1)[0], { a: -3, b: 3, c: -1, d: 1, e: 1.3, f: -1.3, g: 1 / 3, h: -3 });
});

test('a terminal state ends its sequence after its record; otherwise a sequence ends at max_steps', (t) => {
  const ending = compiled(definition({ transitions: { A: { B: 1 } }, terminal: ['B'], max_steps: 10 }));
  const lengths = sequences(run(ending, 30)).map((s) => s.map((r) => r.state).join(''));
  t.true(lengths.every((s) => s === 'AB'));

  const open = compiled(definition({ transitions: { A: { B: 1 }, B: { A: 1 } }, max_steps: 5 }));
  const runs = sequences(run(open, 30)).map((s) => s.map((r) => r.state).join(''));
  t.deepEqual(runs, ['ABABA', 'ABABA', 'ABABA', 'ABABA', 'ABABA', 'ABABA']);

  const startsTerminal = compiled(definition({ terminal: ['A'], max_steps: 10 }));
  t.deepEqual(
    run(startsTerminal, 3).map((r) => r.sequence_id),
    [1, 2, 3],
  );
});

test('state is this record\'s state and prev_state the previous record\'s (the same at step 1); weights see the state being left', (t) => {
  const model = compiled(
    definition({
      transitions: { A: { B: "state == 'A' && prev_state == 'A' ? 1 : 0" }, B: { C: 1 }, C: { D: 1 } },
      fields: [
        { name: 's', type: 'string', value: 'state' },
        { name: 'p', type: 'string', value: 'prev_state' },
        { name: 'st', type: 'integer', value: 'step' },
        { name: 'seq', type: 'integer', value: 'sequence' },
      ],
      max_steps: 4,
    }),
  );
  const records = run(model, 5);
  t.deepEqual(
    records.map((r) => `${String(r.seq)}:${String(r.st)}:${String(r.p)}>${String(r.s)}`),
    ['1:1:A>A', '1:2:A>B', '1:3:B>C', '1:4:C>D', '2:1:A>A'],
  );
});

test('a scenario event sets a param inside its window (own name: the profile value; intensity: the event\'s), nowhere else', (t) => {
  const model = compiled(
    definition({
      profiles: { base: { rate: 2, other: 5 } },
      fields: [
        { name: 'x', type: 'number', value: 'rate + other' },
        { name: 'ev', type: 'string', value: 'event' },
        { name: 'i', type: 'number', value: 'intensity' },
      ],
      events: [{ type: 'surge', description: 'rate jumps', set: { rate: 'rate * 10 + intensity' } }],
      max_steps: 6,
    }),
  );
  const records = run(model, 12, { scenario: { events: [{ type: 'surge', sequence: 2, at_step: 3, duration: 2, intensity: 1.5 }] } });
  t.deepEqual(
    records.map((r) => r.x),
    [7, 7, 7, 7, 7, 7, 7, 7, 26.5, 26.5, 7, 7],
  );
  t.deepEqual(
    records.map((r) => r.ev),
    ['', '', '', '', '', '', '', '', 'surge', 'surge', '', ''],
  );
  t.deepEqual(
    records.map((r) => r.scenario_event),
    [null, null, null, null, null, null, null, null, 'surge', 'surge', null, null],
  );
  t.is(records[8]!.i, 1.5);
  t.is(records[7]!.i, 0);
});

test('a scenario event enters its state at the window\'s first step, with no transition drawn', (t) => {
  const model = compiled(
    definition({
      // From A nothing moves (absent); from B a certain move to C: the enter, not a transition, puts B there.
      transitions: { B: { C: 1 } },
      events: [{ type: 'kick', description: 'into B', enter: 'B' }],
      max_steps: 6,
    }),
  );
  const records = run(model, 6, { scenario: { events: [{ type: 'kick', sequence: 1, at_step: 3, duration: 2, intensity: 1 }] } });
  t.deepEqual(
    records.map((r) => r.state),
    ['A', 'A', 'B', 'C', 'C', 'C'],
  );
  // At step 1 the enter replaces the initial draw.
  const first = run(model, 2, { scenario: { events: [{ type: 'kick', sequence: 'all', at_step: 1, duration: 1, intensity: 1 }] } });
  t.deepEqual(
    first.map((r) => r.state),
    ['B', 'C'],
  );
});

test('choice draws its strings by normalised weights; bernoulli is 0 or 1', (t) => {
  const model = compiled(
    definition({
      fields: [
        { name: 'c', type: 'string', value: "choice(['x', 'y'], [1, 3])" },
        { name: 'b', type: 'integer', value: 'bernoulli(0.25)' },
      ],
    }),
  );
  const records = run(model, 40_000);
  t.true(Math.abs(share(records.map((r) => r.c), 'y') - 0.75) < 0.015);
  t.true(Math.abs(share(records.map((r) => r.b), 1) - 0.25) < 0.015);
  t.true(records.every((r) => r.b === 0 || r.b === 1));
});

test('the random functions draw from their distributions (means within a few standard errors)', (t) => {
  const cases: [string, number, number][] = [
    ['uniform(2, 4)', 3, 1 / Math.sqrt(12)],
    ['integer(1, 6)', 3.5, Math.sqrt(35 / 12)],
    ['normal(10, 2)', 10, 2],
    ['lognormal(0, 0.5)', Math.exp(0.125), 0.6],
    ['exponential(2)', 0.5, 0.5],
    ['gamma(2, 3)', 6, Math.sqrt(18)],
    ['gamma(0.5, 1)', 0.5, Math.sqrt(0.5)],
    ['beta(2, 5)', 2 / 7, 0.16],
    ['poisson(3)', 3, Math.sqrt(3)],
    ['poisson(50)', 50, Math.sqrt(50)],
  ];
  const model = compiled(definition({ fields: cases.map(([value], i) => ({ name: `f${i}`, type: 'number', value })) }));
  const n = 20_000;
  const records = run(model, n);
  cases.forEach(([value, mean, sd], i) => {
    const xs = records.map((r) => r[`f${i}`] as number);
    const m = xs.reduce((a, b) => a + b, 0) / n;
    t.true(Math.abs(m - mean) < (5 * sd) / Math.sqrt(n), `${value}: mean ${m}, expected ${mean}`);
  });
  const dice = new Set(records.map((r) => r.f1));
  t.deepEqual([...dice].sort(), [1, 2, 3, 4, 5, 6]);
});
