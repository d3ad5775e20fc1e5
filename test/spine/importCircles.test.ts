import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, normalize } from 'node:path';
import test from 'ava';

/**
 * A newcomer follows one request by reading modules in the order they import each other: no module may
 * (through others) import itself, type-only imports included, since those too say "read that first".
 */
const ROOTS = ['api', 'worker', 'shared', 'cli', 'sdk'];

const RELATIVE_IMPORT = /^(?:import|export)\b[^'"]*?\bfrom\s+'(\.{1,2}\/[^']+)'/gm;
const PACKAGE_IMPORT = /^(?:import|export)\b[^'"]*?\bfrom\s+'([^.'][^']*)'/gm;

/** Each module's imports of other modules (paths from the repository's root), and the packages it imports. */
const readModules = async (): Promise<{ graph: Map<string, string[]>; packages: Map<string, string[]> }> => {
  const graph = new Map<string, string[]>();
  const packages = new Map<string, string[]>();
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
      packages.set(
        path,
        [...source.matchAll(PACKAGE_IMPORT)].map((match) => match[1]!),
      );
    }
  }
  return { graph, packages };
};

const importGraph = async (): Promise<Map<string, string[]>> => (await readModules()).graph;

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

/**
 * api/ reads top-down (docs/architecture.md, "The run wing, route to ledger"): routes/ is the only layer
 * that knows HTTP, and imports go down from it, never back up. A run's wing is routes → runs/ →
 * simulations/ → limits/ → shared/; nothing but app.ts (and openapi/, which documents the routes' own
 * schemas) imports routes/; the wing imports no Koa and no Services (it takes its dependencies as
 * RunDependencies, StreamRunDependencies and LimitDependencies); and Services.ts, the bag of every
 * process-wide dependency, imports nothing from a folder whose modules consume it.
 */
const WING = ['runs', 'simulations', 'limits'] as const;
/** Folders of api/ the wing may never import: the layers above it. */
const ABOVE_WING = new Set(['routes', 'openapi', 'middleware', 'idempotency', 'bulk', 'datasets', 'app.ts', 'server.ts', 'Services.ts', 'createServices.ts']);
/** Within the wing, what each folder may not import: the ones above it. */
const WING_ABOVE: Readonly<Record<(typeof WING)[number], readonly string[]>> = { runs: [], simulations: ['runs'], limits: ['runs', 'simulations'] };

/** Imports the rules allow for now, each with its reason: the live streams work owns these modules. */
const LAYER_EXCEPTIONS: ReadonlyArray<readonly [from: string, to: string, reason: string]> = [
  ['api/streams/createStream.ts', 'api/routes/streams/schema.ts', "the streams work's request type still lives beside its route's schema"],
  ['api/streams/presentStream.ts', 'api/routes/streams/schema.ts', "the streams work's response type still lives beside its route's schema"],
];

/** The folder of api/ a module is in (`routes`, `runs`, …), or its own name at the top of api/. */
const layerOf = (path: string): string | undefined => (path.startsWith('api/') ? path.split('/')[1] : undefined);

const ALLOWED_INTO_ROUTES = new Set(['routes', 'openapi', 'app.ts']);

/** Every import of api/ that runs against its layering, as `from → to (rule)`. */
const upwardImports = (graph: ReadonlyMap<string, readonly string[]>, packages: ReadonlyMap<string, readonly string[]>): string[] => {
  const found: string[] = [];
  const allowed = new Set(LAYER_EXCEPTIONS.map(([from, to]) => `${from} → ${to}`));
  const report = (from: string, to: string, rule: string): void => {
    if (!allowed.has(`${from} → ${to}`)) found.push(`${from} → ${to} (${rule})`);
  };
  const consumers = new Set([...graph].filter(([, imports]) => imports.includes('api/Services.ts')).map(([path]) => layerOf(path)));
  for (const [from, imports] of graph) {
    const layer = layerOf(from);
    if (layer === undefined) continue;
    for (const to of imports) {
      const target = layerOf(to);
      if (target === undefined || target === layer) continue;
      if (target === 'routes' && !ALLOWED_INTO_ROUTES.has(layer)) report(from, to, 'nothing but app.ts imports routes/');
      const wing = WING.find((each) => each === layer);
      if (wing !== undefined && (ABOVE_WING.has(target) || WING_ABOVE[wing].includes(target))) report(from, to, `${layer}/ imports nothing above it`);
      if (from === 'api/Services.ts' && consumers.has(target)) report(from, to, 'Services.ts imports no consumer of Services');
    }
    if (WING.some((each) => each === layer)) {
      for (const name of packages.get(from) ?? []) {
        if (name === 'koa' || name.startsWith('@koa/')) report(from, name, 'the run wing knows no Koa');
      }
    }
  }
  return found;
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

test('api/ imports only downward: routes/ → runs/ → simulations/ → limits/ → shared/, nothing but app.ts imports routes/, Services.ts imports no consumer', async (t) => {
  const { graph, packages } = await readModules();
  t.deepEqual(upwardImports(graph, packages), []);
});

test('the layering rule catches an import back up, into routes/, from a consumer of Services, and of Koa in the wing', (t) => {
  const graph = new Map([
    ['api/limits/a.ts', ['api/runs/b.ts']],
    ['api/runs/b.ts', ['api/routes/x/c.ts', 'api/Services.ts', 'api/limits/a.ts']],
    ['api/Services.ts', ['api/auth/d.ts', 'api/runs/RunDependencies.ts']],
    ['api/auth/e.ts', ['api/Services.ts']],
    ['api/app.ts', ['api/routes/x/c.ts']],
    ['api/simulations/f.ts', []],
  ]);
  const packages = new Map([['api/simulations/f.ts', ['node:http2', 'koa']]]);
  t.deepEqual(upwardImports(graph, packages), [
    'api/limits/a.ts → api/runs/b.ts (limits/ imports nothing above it)',
    'api/runs/b.ts → api/routes/x/c.ts (nothing but app.ts imports routes/)',
    'api/runs/b.ts → api/routes/x/c.ts (runs/ imports nothing above it)',
    'api/runs/b.ts → api/Services.ts (runs/ imports nothing above it)',
    'api/Services.ts → api/auth/d.ts (Services.ts imports no consumer of Services)',
    'api/Services.ts → api/runs/RunDependencies.ts (Services.ts imports no consumer of Services)',
    'api/simulations/f.ts → koa (the run wing knows no Koa)',
  ]);
});
