import test from 'ava';
import { findSimulation } from '../../shared/db/queries/simulations.ts';
import { simulationJobDataSchema } from '../../shared/jobs/simulationJob.ts';
import { eventually } from '../helpers/eventually.ts';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { startTestWorker } from '../helpers/startTestWorker.ts';
import { postSimulation } from './postSimulation.ts';

let app: TestApp;

test.before(async () => {
  // Late in a UTC month, so the period is visibly the month of `now`, not of the database's clock.
  app = await startTestApp({ now: () => new Date('2026-02-28T23:59:59.999Z') });
});

test.after.always(async () => {
  await app?.close();
});

const waitFor = <T>(probe: () => Promise<T | undefined>): Promise<T> => eventually(probe, 5000, 20);

test('an admitted request is a queued ledger row and a job without secrets until a worker runs it, then the row is completed', async (t) => {
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
  // The row and the job are written side by side (neither waits on the other): wait for the row too.
  const jobId = job.id;
  const queued = await waitFor(async () => (await findSimulation(app.services.pool, jobId)) ?? undefined);
  t.like(queued, {
    account_id: account.id,
    api_key_id: apiKey.id,
    status: 'queued',
    period_start: '2026-02-01T00:00:00.000Z',
    started_at: null,
    finished_at: null,
    compute_ms: null,
  });
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
  const completed = await findSimulation(app.services.pool, job.id);
  t.like(completed, { status: 'completed', period_start: '2026-02-01T00:00:00.000Z', compute_ms: response.body.metadata.compute_ms });
  t.truthy(completed?.started_at);
  t.truthy(completed?.finished_at);
});
