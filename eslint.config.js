// Lint with type information: the rules that catch what tsc cannot (a promise nobody awaits, an async
// callback where a sync one is expected, a switch that forgot a case). Run by `npm test` before ava.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const OWN_SERVER_ONLY = 'FLUSHDB/FLUSHALL only on a Redis this test started itself (startRedisServer(): server.admin.flushall()); the configured one may hold data that is not ours.';
const NO_DATABASE_INDEX = 'No Redis database index in test sources: use the Redis the configuration gives (TEST_REDIS_URL) with a key prefix, or start one of your own (startRedisServer).';
const FLUSH_COMMAND = '/^(flushdb|flushall|FLUSHDB|FLUSHALL|flushdbBuffer|flushallBuffer)$/';
// esquery ends a regular expression at its first slash, so the slashes inside are written \x2F.
const INDEXED_URL = String.raw`/rediss?:\x2F\x2F[^\s]*:[0-9]+\x2F[0-9]+/`;

/** no-restricted-syntax entries: exported for the test that proves they catch what they name. */
export const REDIS_ISOLATION = [
  { selector: `CallExpression[callee.property.name=${FLUSH_COMMAND}]:not([callee.object.property.name='admin'])`, message: OWN_SERVER_ONLY },
  { selector: `CallExpression[callee.property.name=/^(call|callBuffer|sendCommand)$/][arguments.0.value=${FLUSH_COMMAND}]`, message: OWN_SERVER_ONLY },
  { selector: `Literal[value=${INDEXED_URL}]`, message: NO_DATABASE_INDEX },
  { selector: `TemplateElement[value.raw=${INDEXED_URL}]`, message: NO_DATABASE_INDEX },
  // `redis://host:${port}/13`: the index after an interpolated port.
  { selector: String.raw`TemplateLiteral[quasis.0.value.raw=/rediss?:\x2F\x2F/] > TemplateElement[value.raw=/^\x2F[0-9]+/]`, message: NO_DATABASE_INDEX },
  { selector: `Property[key.name='db'][value.type='Literal']`, message: NO_DATABASE_INDEX },
  { selector: `CallExpression[callee.property.name='select'][arguments.0.type='Literal']`, message: NO_DATABASE_INDEX },
];

export default tseslint.config(
  {
    ignores: ['node_modules/', 'web/', 'api/routes/docs/page/', 'test-artifacts/', 'coverage/'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: {
      reportUnusedDisableDirectives: 'error',
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      // Catch clauses and callbacks hand over `unknown`; passing it on as the rejection reason is fine.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'error',
    },
  },
  {
    // Tests read untyped JSON answers (`any`) and assert on them; the assertion is the type check there.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // Tests and benchmarks touch only the Redis they were given (docs/development.md): no database index
    // written in the source, and FLUSHDB/FLUSHALL only on a server the test started itself
    // (test/helpers/startRedisServer.ts: `server.admin.flushall()`). Another program's data may live in
    // the configured one. test/ops/redisIsolation.test.ts checks that these selectors catch what they name.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', ...REDIS_ISOLATION] },
  },
  {
    // Benchmarks and command-line scripts print their report to the terminal.
    files: ['bench/**/*.ts', 'scripts/**/*.ts'],
    rules: { 'no-console': 'off' },
  },
  {
    // This file itself is plain JavaScript outside tsconfig's include list.
    files: ['eslint.config.js'],
    extends: [tseslint.configs.disableTypeChecked],
  },
);
