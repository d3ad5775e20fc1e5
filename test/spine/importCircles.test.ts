import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, normalize } from 'node:path';
import test from 'ava';

/**
 * A newcomer follows one request by reading modules in the order they import each other: no module may
 * (through others) import itself, type-only imports included, since those too say "read that first".
 */
const ROOTS = ['api', 'worker', 'shared', 'cli', 'sdk'];

const RELATIVE_IMPORT = /^(?:import|export)\b[^'"]*?\bfrom\s+'(\.{1,2}\/[^']+)'/gm;

const importGraph = async (): Promise<Map<string, string[]>> => {
  const graph = new Map<string, string[]>();
  for (const root of ROOTS) {
    for (const entry of await readdir(root, { withFileTypes: true, recursive: true })) {
      if (!entry.isFile() || !entry.name.endsWith('.ts')) {
        continue;
      }
      const path = normalize(join(entry.parentPath, entry.name));
      const source = await readFile(path, 'utf8');
      graph.set(
        path,
        [...source.matchAll(RELATIVE_IMPORT)].map((match) => normalize(join(dirname(path), match[1]!))),
      );
    }
  }
  return graph;
};

/** Every circle of the graph, each once, as the path that closes it. */
const circlesOf = (graph: ReadonlyMap<string, readonly string[]>): string[] => {
  const circles = new Set<string>();
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): void => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') {
        circles.add([...stack.slice(stack.indexOf(next)), next].join(' → '));
      } else if (!state.has(next) && graph.has(next)) {
        visit(next);
      }
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of graph.keys()) {
    if (!state.has(node)) {
      visit(node);
    }
  }
  return [...circles];
};

test('no module of api/, worker/, shared/, cli/ or sdk/ imports itself through others', async (t) => {
  const graph = await importGraph();
  t.true(graph.size > 100, `${graph.size} modules read`);
  t.deepEqual(circlesOf(graph), []);
});

/**
 * One folder per process and one for what both use (docs/development.md#code-conventions): the API and the worker meet only in
 * shared/, so neither process loads the other's code (nor its configuration or connections) by accident.
 */
const FORBIDDEN: ReadonlyArray<readonly [from: string, to: string]> = [
  ['worker', 'api'],
  ['api', 'worker'],
  ['shared', 'api'],
  ['shared', 'worker'],
];

/** Every import that crosses a forbidden boundary, as `importer → imported`. */
const crossingsOf = (graph: ReadonlyMap<string, readonly string[]>): string[] =>
  [...graph].flatMap(([node, imports]) =>
    imports
      .filter((imported) => FORBIDDEN.some(([from, to]) => node.startsWith(`${from}/`) && imported.startsWith(`${to}/`)))
      .map((imported) => `${node} → ${imported}`),
  );

test('worker/ never imports api/ (nor api/ worker/, nor shared/ either): the processes meet in shared/', async (t) => {
  const graph = await importGraph();
  t.deepEqual(crossingsOf(graph), []);
});

test('the boundary rule catches a crossing, type-only imports included', (t) => {
  const graph = new Map([
    ['worker/streams/run.ts', ['api/auth/cipher.ts', 'shared/x.ts']],
    ['shared/x.ts', ['worker/y.ts']],
    ['api/app.ts', ['shared/x.ts']],
  ]);
  t.deepEqual(crossingsOf(graph), ['worker/streams/run.ts → api/auth/cipher.ts', 'shared/x.ts → worker/y.ts']);
});

test('the rule catches a circle, type-only imports included', (t) => {
  const graph = new Map([
    ['a.ts', ['b.ts']],
    ['b.ts', ['c.ts']],
    ['c.ts', ['a.ts']],
    ['d.ts', ['a.ts']],
  ]);
  t.deepEqual(circlesOf(graph), ['a.ts → b.ts → c.ts → a.ts']);
  t.deepEqual([..."import type { X } from './x.ts';\nexport { y } from '../y.ts';".matchAll(RELATIVE_IMPORT)].map((match) => match[1]), ['./x.ts', '../y.ts']);
});
