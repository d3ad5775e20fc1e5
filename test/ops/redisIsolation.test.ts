import test from 'ava';
import { Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { REDIS_ISOLATION } from '../../eslint.config.js';

// The lint rule that keeps tests to the Redis they were given (eslint.config.js): these cases prove it
// catches a database index written in the source and a flush of anything but a server the test started.
const linter = new Linter({ configType: 'flat' });
const config: Linter.Config[] = [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser }, rules: { 'no-restricted-syntax': ['error', ...REDIS_ISOLATION] } }];
const problemsIn = (source: string): number => linter.verify(source, config, 'test/area/example.test.ts').length;

const REFUSED: ReadonlyArray<readonly [string, string]> = [
  // eslint-disable-next-line no-restricted-syntax -- a source the rule must refuse, as text
  ['a URL with a database index', "const url = 'redis://127.0.0.1:6390/13';"],
  // eslint-disable-next-line no-restricted-syntax -- a source the rule must refuse, as text
  ['a TLS URL with a database index', 'const url = `rediss://cache.example:6380/2`;'],
  ['an index after an interpolated port', 'const url = `redis://127.0.0.1:${port}/13`;'],
  ['a db option', 'const redis = new Redis({ port: 6379, db: 13 });'],
  ['SELECT', 'await redis.select(13);'],
  ['FLUSHDB on the configured Redis', 'await redis.flushdb();'],
  ['FLUSHALL on the configured Redis', 'await connectTestRedis().flushall();'],
  ['FLUSHDB sent as a raw command', "await redis.call('FLUSHDB');"],
];

for (const [title, source] of REFUSED) {
  test(`the lint rule refuses ${title} in a test source`, (t) => {
    t.is(problemsIn(source), 1, source);
  });
}

test('the lint rule lets a test flush a Redis it started itself and use the configured URL', (t) => {
  t.is(problemsIn('const server = await startRedisServer(); await server.admin.flushall(); await ownRedis.admin.flushdb();'), 0);
  t.is(problemsIn('const url = process.env.TEST_REDIS_URL ?? `redis://127.0.0.1:6379`; const other = `redis://127.0.0.1:${port}`;'), 0);
  t.is(problemsIn('const link = `${app.url}/v1/simulations/${id}`;'), 0);
});
