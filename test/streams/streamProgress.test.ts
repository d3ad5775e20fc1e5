import test from 'ava';
import { findStreamById } from '../../shared/db/queries/streams.ts';
import { createLogger } from '../../shared/logger.ts';
import { createStreamProgress } from '../../worker/streams/createStreamProgress.ts';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import { eventually } from '../helpers/eventually.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';

// docs/streams.md, "How it runs": a worker records how far its streams' events are due in one statement
// for all of them, never backwards and only while a stream runs, and tells each clock of a cancellation.

let app: TestApp;

test.before(async () => {
  app = await startTestApp();
});

test.after.always(async () => {
  await app?.close();
});

const createSlowStream = async (key: string): Promise<string> => {
  const response = await fetch(`${app.url}/v1/streams`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ preset: 'finance', num_interactions: 100, speed: 0.01 }),
  });
  return ((await response.json()) as { id: string }).id;
};

test('the clocks of several streams are recorded together; a cancelled stream is no longer written and its clock learns of it', async (t) => {
  const account = await buildAccount(app.services.pool, { plan: 'enterprise' });
  const { key } = await buildApiKey(app.services.pool, account.id);
  const [a, b] = [await createSlowStream(key), await createSlowStream(key)];
  const progress = createStreamProgress(app.services.pool, createLogger('silent', 'worker'), 20);
  const clockA = progress.follow(a, 0);
  const clockB = progress.follow(b, 0);
  clockA.report(7);
  clockB.report(3);
  await eventually(async () => ((await findStreamById(app.services.pool, a))?.delivered === 7 && (await findStreamById(app.services.pool, b))?.delivered === 3 ? true : undefined));
  // Never backwards.
  clockA.report(5);
  clockB.report(4);
  await eventually(async () => ((await findStreamById(app.services.pool, b))?.delivered === 4 ? true : undefined));
  t.is((await findStreamById(app.services.pool, a))?.delivered, 7);
  t.true(clockA.running());

  const cancelled = await fetch(`${app.url}/v1/streams/${a}`, { method: 'DELETE', headers: { Authorization: `Bearer ${key}` } });
  t.is(cancelled.status, 200);
  await eventually(() => (clockA.running() ? undefined : true));
  t.true(clockB.running());
  clockA.report(50);
  clockB.report(9);
  await eventually(async () => ((await findStreamById(app.services.pool, b))?.delivered === 9 ? true : undefined));
  t.is((await findStreamById(app.services.pool, a))?.delivered, 7);
  clockA.release();
  clockB.release();
  await progress.close();
});
