import { readFile } from 'node:fs/promises';
import test from 'ava';
import { ConfigError, configSchema, parseConfig } from '../../shared/config.ts';

test('development runs on working defaults with nothing set', (t) => {
  const config = parseConfig({});
  t.is(config.nodeEnv, 'development');
  t.is(config.port, 3000);
  t.is(config.publicUrl, 'http://localhost:3000');
  t.is(config.frontendUrl, config.publicUrl);
  t.is(config.simulationTimeoutMs, 30_000);
  t.false(config.isProduction);
  t.true(config.workerThreads >= 1);
  t.true(Object.isFrozen(config) && Object.isFrozen(config.oauth.github));
});

test('production demands SESSION_SECRET and the URLs, listing every missing one at once', (t) => {
  const error = t.throws(() => parseConfig({ NODE_ENV: 'production' }), { instanceOf: ConfigError });
  const names = (error).problems.map((problem) => problem.split(':')[0]).sort();
  t.deepEqual(names, ['DATABASE_URL', 'PUBLIC_URL', 'REDIS_URL', 'SESSION_SECRET']);
});

test('invalid values are each reported', (t) => {
  const error = t.throws(() => parseConfig({ PORT: 'eighty', LOG_LEVEL: 'loud', SIMULATION_TIMEOUT_MS: '-5' }), { instanceOf: ConfigError });
  t.is((error).problems.length, 3);
});

test('a short SESSION_SECRET is refused', (t) => {
  t.throws(() => parseConfig({ SESSION_SECRET: 'short' }), { instanceOf: ConfigError });
});

test('FRONTEND_URL defaults to PUBLIC_URL and both lose trailing slashes', (t) => {
  const config = parseConfig({ PUBLIC_URL: 'https://sim.example.com/' });
  t.is(config.publicUrl, 'https://sim.example.com');
  t.is(config.publicOrigin, 'https://sim.example.com');
  t.is(config.frontendUrl, 'https://sim.example.com');
});

test("the configuration page's table (docs/configuration.md) lists exactly the schema's variables with their descriptions", async (t) => {
  const readme = await readFile(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
  const rows = new Map<string, string>();
  for (const line of readme.split('\n')) {
    const match = /^\| `([A-Z_]+)` \| (.*) \|$/.exec(line);
    if (match?.[1] !== undefined && match[2] !== undefined) {
      rows.set(match[1], match[2]);
    }
  }
  const schemaKeys = Object.keys(configSchema.shape).sort();
  t.deepEqual([...rows.keys()].sort(), schemaKeys);
  for (const key of schemaKeys) {
    t.is(rows.get(key), configSchema.shape[key as keyof typeof configSchema.shape].description, key);
  }
});
