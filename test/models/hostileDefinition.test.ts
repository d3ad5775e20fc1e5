import { readdirSync, readFileSync } from 'node:fs';
import test from 'ava';
import { largestModelDefinition } from '../../bench/largestModel.ts';
import { createSimulation } from '../../shared/engine/createSimulation.ts';
import { checkModelDefinition, compileModel } from '../../shared/models/index.ts';
import type { ModelDefinition } from '../../shared/models/index.ts';
import type { ModelSimulator } from '../../shared/models/ModelSimulator.ts';
import { definition } from './helpers/modelFixtures.ts';

// docs/models.md#implementation-notes: nothing in a definition runs code or reaches a global, a
// prototype or the process, and no definition makes a run slower than its linear cost (records x
// expression nodes). Costs are counted (expression nodes evaluated), never timed.

/** Expression nodes evaluated by a run of n records of a model compiled with the node meter. */
function evaluatedNodes(input: Record<string, unknown>, n: number, scenario = false): { evaluated: number; nodes: number } {
  const model = compileModel('largest', input as unknown as ModelDefinition, { countNodes: true });
  const events = scenario ? { scenario: { events: Array.from({ length: 16 }, (_, e) => ({ type: `event${e}`, sequence: 'all' as const, at_step: 1 + e * 50, duration: 1000, intensity: 3 })) } } : {};
  // Engine 3: the model's own simulator, whose meter this reads (engine 4 wraps it with its clock).
  const { simulator } = createSimulation({ model, profile: 'profile15', seed: 3, numInteractions: n, serviceVersion: '3.0.0', ...events });
  for (let i = 0; i < n; i++) simulator.next();
  return { evaluated: (simulator as ModelSimulator).evaluatedNodes, nodes: model.nodeCount };
}

test('the largest definition (every limit at its maximum, 1,000-character nesting) is valid and compiles', (t) => {
  const input = largestModelDefinition();
  t.true(Buffer.byteLength(JSON.stringify(input)) <= 64 * 1024);
  const check = checkModelDefinition(input);
  t.deepEqual(check.issues, []);
  const model = compileModel('largest', check.definition!);
  t.is(model.engine.states.length, 64);
  t.is(model.engine.fields.length, 3 + 64 + 1);
  t.is(model.engine.profiles.length, 16);
  t.is(model.engine.scenarioEvents?.length, 16);
  t.true(model.nodeCount > 1000);
});

test('a 1,000-record run of it costs at most records x expression nodes, and twice the records twice the cost', (t) => {
  const input = largestModelDefinition();
  for (const scenario of [false, true]) {
    const one = evaluatedNodes(input, 1000, scenario);
    const two = evaluatedNodes(input, 2000, scenario);
    t.true(one.evaluated <= 1000 * one.nodes, `${one.evaluated} nodes for 1000 records of ${one.nodes}`);
    t.true(two.evaluated <= 2000 * two.nodes);
    // Every record evaluates every variable and field, at least a quarter of the model (no shortcut hides work)...
    t.true(one.evaluated >= 1000 * (one.nodes / 4), `${one.evaluated}`);
    // ...and the cost per record does not grow with the run.
    const ratio = two.evaluated / one.evaluated;
    t.true(ratio > 1.8 && ratio < 2.2, `ratio ${ratio}`);
  }
});

test('names a prototype or the process has are unknown unless the definition declares them, and then they are slots', (t) => {
  for (const expression of ['constructor', '__proto__', 'process', 'globalThis', 'this', 'toString', 'hasOwnProperty', 'valueOf', 'Function', 'eval', 'require', 'import', 'arguments', 'undefined', 'NaN', 'Infinity', 'Math']) {
    const check = checkModelDefinition(definition({ fields: [{ name: 'x', type: 'number', value: expression }] }));
    t.false(check.valid, expression);
    t.regex(check.issues[0]!.message, /^unknown name/, expression);
  }
  for (const expression of ["eval('1')", "require('fs')", 'process.exit(1)', "constructor.constructor('return process')()", 'x[0]', "'a'['length']", 'Math.random()', 'f`x`', 'new Date()', '(() => 1)()', 'a = 1', 'a += 1', 'x++', 'import(\'fs\')', 'this.x', 'toString()']) {
    const check = checkModelDefinition(definition({ fields: [{ name: 'x', type: 'number', value: expression }] }));
    t.false(check.valid, expression);
  }
  // Declared, `constructor` and `prototype` are params like any other: they read their profile's values.
  const input = largestModelDefinition();
  const model = compileModel('largest', checkModelDefinition(input).definition!);
  const { simulator } = createSimulation({ model, profile: 'profile2', seed: 1, numInteractions: 1 });
  simulator.next();
  t.false(Number.isNaN(simulator.values[3 + 6]!));
});

test('a definition parsed from JSON with __proto__ keys pollutes no prototype', (t) => {
  const text = JSON.stringify(definition({ transitions: { A: { B: 0.5 } } })).replace('"profiles":{', '"profiles":{"__proto__":{"polluted":1},').replace('"transitions":{', '"transitions":{"__proto__":{"A":1},');
  const input = JSON.parse(text) as Record<string, unknown>;
  const before = Object.getOwnPropertyNames(Object.prototype).sort();
  const check = checkModelDefinition(input);
  t.false(check.valid);
  t.true(check.issues.some((i) => i.path === 'profiles.__proto__'));
  t.true(check.issues.some((i) => i.path === 'transitions.__proto__'));
  t.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), before);
  t.is((({}) as Record<string, unknown>).polluted, undefined);
});

test('the language\'s code evaluates no text: no eval, Function, dynamic import or require', (t) => {
  const dir = new URL('../../shared/models/', import.meta.url);
  const files = readdirSync(dir).filter((f) => f.endsWith('.ts'));
  t.true(files.length > 5);
  for (const file of files) {
    const source = readFileSync(new URL(file, dir), 'utf8');
    t.notRegex(source, /\beval\s*\(|\bFunction\s*\(|\bimport\s*\(|\brequire\s*\(|\bvm\b/, file);
  }
});
