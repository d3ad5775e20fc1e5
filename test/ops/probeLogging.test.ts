import test from 'ava';
import { eventually } from '../helpers/eventually.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';

let app: TestApp;

test.before(async () => {
  app = await startTestApp();
});

test.after.always(async () => {
  await app?.close();
});

const requestLines = (logs: string): Array<{ path?: string; level?: number }> =>
  logs
    .split('\n')
    .filter((line) => line.includes('"msg":"request"'))
    .map((line) => JSON.parse(line) as { path?: string; level?: number });

test('probes (GET /ready, GET /health) are logged at debug, so an info log is not flooded by load balancers; other requests at info', async (t) => {
  for (let index = 0; index < 5; index += 1) {
    t.is((await fetch(`${app.url}/ready`)).status, 200);
    t.is((await fetch(`${app.url}/health`)).status, 200);
  }
  // A request logged after the probes: once its line is there, theirs would be too.
  t.is((await fetch(`${app.url}/v1/presets`)).status, 200);
  const lines = await eventually(() => {
    const found = requestLines(app.logs());
    return found.some((line) => line.path === '/v1/presets') ? found : undefined;
  });
  t.deepEqual(lines.filter((line) => line.path === '/ready' || line.path === '/health'), []);
  t.is(lines.find((line) => line.path === '/v1/presets')?.level, 30);
});
