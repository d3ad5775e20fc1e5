import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import test from 'ava';
import ts from 'typescript';

/**
 * docs/development.md#code-conventions: a file is named after its main export. A module passes when one of its named exports, with
 * case and underscores ignored, is the file's name (`engineVersion.ts` → ENGINE_VERSION), or the file's
 * name + `Schema` for a zod schema module. Default exports do not count (named exports only).
 */
const ROOTS = ['api', 'worker', 'shared'];

/** Files that have no single main export, each with the reason; a pattern's `*` is one path segment. */
const EXCEPTIONS: ReadonlyArray<readonly [pattern: string, reason: string]> = [
  ['api/server.ts', 'process entry point: listens, exports nothing'],
  ['worker/main.ts', 'process entry point: starts the worker, exports nothing'],
  ['api/app.ts', 'layout name (docs/development.md#code-conventions: app.ts builds the Koa app)'],
  ['worker/pool.ts', 'layout name (docs/development.md#code-conventions: pool.ts holds the piscina pool)'],
  ['api/routes/*/routes.ts', 'layout name (docs/development.md#code-conventions: routes/<resource>/routes.ts)'],
  ['api/routes/*/schema.ts', "layout name (docs/development.md#code-conventions: routes/<resource>/schema.ts, one schema per endpoint)"],
  ['api/routes/simulations/historySchema.ts', "the history endpoints' schemas, beside the resource's schema.ts"],
  ['api/routes/usage/dailyUsageSchema.ts', "the daily usage endpoint's query and response schemas, beside the resource's schema.ts"],
  ['api/routes/simulations/datasetSchema.ts', "the dataset endpoint's query schema and type, beside the resource's schema.ts"],
  ['shared/models/modelTypes.ts', "the model language's types: the definition, its check, the compiled model, its catalog and sample"],
  ['shared/models/expressionTree.ts', "the expression tree: its node types and the syntax error that carries a position"],
  ['shared/models/compileExpression.ts', 'the expression compiler and the code types it emits, which change together'],
  ['shared/models/randomDraws.ts', "the language's random functions, a family on engine 3's addressed draws"],
  ['shared/db/queries/*.ts', 'layout name (docs/development.md#code-conventions: db/queries/<entity>.ts, verb-first functions per entity)'],
  ['shared/errors/errors.ts', 'the catalogue of error factories, one per envelope code'],
  ['shared/engine/presetTypes.ts', "the preset catalog's types and its list of names"],
  ['shared/engine/fidelity/statistics.ts', 'a family of pure statistics functions'],
  ['shared/engine/engineVersions.ts', 'the served engine versions and their lookups'],
  ['api/auth/sessionCookie.ts', "the session cookie's seal, open and serialize functions, which change together"],
  ['api/middleware/validate.ts', 'validateBody and validateQuery, one zod middleware for each input'],
  ['api/routes/simulations/runCursor.ts', "the history cursor's encode/decode pair"],
  ['api/routes/web/securityHeaders.ts', 'the header sets of pages and assets'],
  ['shared/auth/authVersion.ts', "an account's auth version: its key, its read and its publish"],
  ['shared/jobs/jobPolicy.ts', 'BullMQ tuning constants the API and the worker share'],
  ['api/limits/limitPolicy.ts', "the limits' policy in one place: windows, leases, TTLs, the RateLimit fields, which refusals are metered"],
  ['shared/jobs/queueName.ts', "the queue's name, a constant both processes import"],
  ['shared/jobs/simulationJob.ts', 'the job contract: its name, its data schema and type'],
  ['shared/metrics/workerPools.ts', "the worker-pool gauges' key, schema and timings"],
  ['shared/version.ts', 'API_VERSION, the one constant of the API contract'],
];

const toRegExp = (pattern: string): RegExp => new RegExp(`^${pattern.replaceAll('.', '\\.').replaceAll('*', '[^/]+')}$`);
const normalize = (name: string): string => name.replaceAll('_', '').toLowerCase();

const listModules = async (root: string): Promise<string[]> => {
  const entries = await readdir(root, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && entry.name !== 'index.ts')
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
};

const hasExport = (node: ts.Statement): boolean =>
  ts.canHaveModifiers(node) &&
  (ts.getModifiers(node) ?? []).some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword) &&
  !(ts.getModifiers(node) ?? []).some((modifier) => modifier.kind === ts.SyntaxKind.DefaultKeyword);

/** The module's named exports (declarations and `export { … }` lists). */
const namedExports = (path: string, text: string): string[] => {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest);
  return source.statements.flatMap((node): string[] => {
    if (ts.isExportDeclaration(node) && node.exportClause !== undefined && ts.isNamedExports(node.exportClause)) {
      return node.exportClause.elements.map((element) => element.name.text);
    }
    if (!hasExport(node)) {
      return [];
    }
    if (ts.isVariableStatement(node)) {
      return node.declarationList.declarations.flatMap((declaration) => (ts.isIdentifier(declaration.name) ? [declaration.name.text] : []));
    }
    if (
      (ts.isFunctionDeclaration(node) || ts.isClassDeclaration(node) || ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node) || ts.isEnumDeclaration(node)) &&
      node.name !== undefined
    ) {
      return [node.name.text];
    }
    return [];
  });
};

const isNamedAfterExport = (path: string, exports: readonly string[]): boolean => {
  const name = normalize(basename(path, '.ts'));
  return exports.some((exported) => normalize(exported) === name || normalize(exported) === `${name}schema`);
};

const modules = await Promise.all(
  (await Promise.all(ROOTS.map(listModules))).flat().map(async (path) => ({ path, exports: namedExports(path, await readFile(path, 'utf8')) })),
);

test('every module of api/, worker/ and shared/ is named after one of its named exports, or is a listed exception', (t) => {
  const offenders = modules
    .filter(({ path }) => !EXCEPTIONS.some(([pattern]) => toRegExp(pattern).test(path)))
    .filter(({ path, exports }) => !isNamedAfterExport(path, exports))
    .map(({ path, exports }) => `${path} exports ${exports.join(', ') || 'nothing'}`);
  t.deepEqual(offenders, []);
});

test('every listed exception still matches a module that needs it', (t) => {
  const stale = EXCEPTIONS.filter(([pattern]) => {
    const matched = modules.filter(({ path }) => toRegExp(pattern).test(path));
    return matched.length === 0 || matched.every(({ path, exports }) => isNamedAfterExport(path, exports));
  }).map(([pattern]) => pattern);
  t.deepEqual(stale, []);
});

test('the rule catches a module named after something it does not export', (t) => {
  t.false(isNamedAfterExport('worker/processSimulation.ts', namedExports('worker/processSimulation.ts', 'export const createSimulationProcessor = 1;')));
  t.false(isNamedAfterExport('worker/simulationThread.ts', namedExports('worker/simulationThread.ts', 'export default function simulationThread() {}')));
  t.true(isNamedAfterExport('shared/engine/engineVersion.ts', namedExports('shared/engine/engineVersion.ts', "export const ENGINE_VERSION = '1';")));
});
