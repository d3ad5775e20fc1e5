import test from 'ava';
import { findSimulation } from '../../shared/db/queries/simulations.ts';
import { simulationJobDataSchema } from '../../shared/jobs/simulationJob.ts';
import { eventually } from '../helpers/eventually.ts';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { startTestWorker } from '../helpers/startTestWorker.ts';
import { postSimulation } from './postSimulation.ts';
import { getWithKey } from '../history/historyFixtures.ts';
import { ledgerWritten } from '../helpers/ledgerWritten.ts';

let app: TestApp;

test.before(async () => {
  // Late in a UTC month, so the period is visibly the month of `now`, not of the database's clock.
  app = await startTestApp({ now: () => new Date('2026-02-28T23:59:59.999Z') });
});

test.after.always(async () => {
  await app?.close();
});

const waitFor = <T>(probe: () => Promise<T | undefined>): Promise<T> => eventually(probe, 5000, 20);

test('an admitted request is a queued run of the history, without a ledger row, and a job without secrets until a worker runs it; then its one row is completed', async (t) => {
  const account = await buildAccount(app.services.pool, { plan: 'enterprise' });
  const apiKey = await buildApiKey(app.services.pool, account.id);
  // No worker yet: the request waits in the queue.
  const pending = postSimulation(app, { preset: 'finance', num_interactions: 10, seed: 5 }, { key: apiKey.key });

  const [job] = await waitFor(async () => {
    const waiting = await app.services.simulations.queue.getWaiting();
    return waiting.length > 0 ? waiting : undefined;
  });
  if (job === undefined || job.id === undefined) {
    t.fail('no job');
    return;
  }
  // In flight, the run lives in Redis only: the history shows it queued, the ledger has no row yet.
  t.is(await findSimulation(app.services.pool, job.id), null);
  const queued = await getWithKey(app, `/v1/simulations/${job.id}`, apiKey.key);
  t.is(queued.status, 200);
  t.like(queued.body, {
    simulation_id: job.id,
    preset: 'finance',
    seed: 5,
    num_interactions: 10,
    status: 'queued',
    finished_at: null,
    compute_ms: null,
    credential: { type: 'api_key', api_key_id: apiKey.id, key_prefix: apiKey.key_prefix },
  });
  const listed = await getWithKey(app, '/v1/simulations?status=queued', apiKey.key);
  t.deepEqual(
    listed.body.data.map((run: { simulation_id: string }) => run.simulation_id),
    [job.id],
  );
  // The job id is the simulation id; its data is the run's inputs and where to answer, nothing else.
  const data = simulationJobDataSchema.strict().parse(job.data);
  t.is(data.simulationId, job.id);
  const serialized = JSON.stringify(job.data);
  for (const secret of [apiKey.key, apiKey.key_prefix, account.email, account.id, apiKey.id]) {
    t.false(serialized.includes(secret));
  }

  const worker = await startTestWorker({ redisPrefix: app.redisPrefix });
  t.teardown(() => worker.close());
  const response = await pending;
  t.is(response.status, 200, response.text);
  t.is(response.body.simulation_id, job.id);
  await ledgerWritten(app.services);
  const completed = await findSimulation(app.services.pool, job.id);
  t.like(completed, {
    account_id: account.id,
    api_key_id: apiKey.id,
    status: 'completed',
    period_start: '2026-02-01T00:00:00.000Z',
    compute_ms: response.body.metadata.compute_ms,
  });
  // The row keeps the instant of admission, so the run keeps its place in the history.
  t.is(completed?.created_at, queued.body.created_at);
  t.truthy(completed?.started_at);
  t.truthy(completed?.finished_at);
});
