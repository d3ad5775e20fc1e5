import { spawn } from 'node:child_process';
import test from 'ava';
import { buildCaller } from '../helpers/limitFixtures.ts';
import { SIMULATION_JOB_NAME } from '../../shared/jobs/simulationJob.ts';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { spawnWorkerProcess, startTestWorker } from '../helpers/startTestWorker.ts';
import { postSimulation } from '../simulations/postSimulation.ts';
import { eventually } from '../helpers/eventually.ts';
import { parseExposition, type Sample, sampleValue, scrape } from './scrape.ts';

let app: TestApp;

/** `promtool check metrics` on an exposition (stdin); its findings and exit code. */
const checkMetrics = (text: string): Promise<{ code: number | null; output: string }> =>
  new Promise((resolve, reject) => {
    const child = spawn('promtool', ['check', 'metrics'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
    child.stdin.end(text);
  });

test.before(async () => {
  app = await startTestApp();
});

test.after.always(async () => {
  await app?.close();
});

test.serial('GET /metrics answers the Prometheus text format with the default process metrics', async (t) => {
  const response = await fetch(`${app.url}/metrics`);
  t.is(response.status, 200);
  t.regex(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  const samples = parseExposition(await response.text());
  t.true(samples.some((sample) => sample.name === 'process_cpu_user_seconds_total'));
  t.true(samples.some((sample) => sample.name === 'nodejs_eventloop_lag_seconds'));
});

test.serial('the exposition follows Prometheus naming: only counters end in _total, and promtool check metrics accepts it', async (t) => {
  const text = await (await fetch(`${app.url}/metrics`)).text();
  const types = [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map(([, name, type]) => ({ name: name ?? '', type: type ?? '' }));
  t.true(types.length > 20);
  t.deepEqual(types.filter(({ name, type }) => name.endsWith('_total') && type !== 'counter'), []);
  t.deepEqual(types.filter(({ name, type }) => type === 'counter' && !name.endsWith('_total')), []);
  // The per-type gauges stay: their sum is what the dropped `_total` gauges said.
  t.true(types.some(({ name }) => name === 'nodejs_active_handles'));
  const checked = await checkMetrics(text);
  t.is(checked.code, 0, checked.output);
  t.is(checked.output.trim(), '');
});

test.serial('request durations are labelled by route template and status, unknown paths by one fixed label', async (t) => {
  t.is((await fetch(`${app.url}/v1/presets/finance`)).status, 200);
  t.is((await fetch(`${app.url}/v1/presets/no-such-preset`)).status, 404);
  t.is((await fetch(`${app.url}/wp-admin/secret-${Date.now()}`)).status, 404);
  const samples = await scrape(app.url);
  const count = (route: string, status: string): number | undefined =>
    sampleValue(samples, 'bss_http_request_duration_seconds_count', { method: 'GET', route, status_code: status });
  t.is(count('/v1/presets/:preset', '200'), 1);
  t.is(count('/v1/presets/:preset', '404'), 1);
  t.is(count('unmatched', '404'), 1);
  // Paths never become labels (the preset label of bss_simulations_total names presets on purpose).
  const httpSamples = samples.filter((sample) => sample.name.startsWith('bss_http_request_duration_seconds'));
  t.false(httpSamples.some((sample) => Object.values(sample.labels).some((value) => value.includes('wp-admin') || value.includes('finance'))));
});

test.serial('queue job counts by state are read from BullMQ when scraped', async (t) => {
  const { queue } = app.services.simulations;
  await queue.add(SIMULATION_JOB_NAME, { not: 'a real job' }, { jobId: 'metrics-waiting' });
  await queue.add(SIMULATION_JOB_NAME, { not: 'a real job' }, { jobId: 'metrics-delayed', delay: 60_000 });
  const samples = await scrape(app.url);
  t.is(sampleValue(samples, 'bss_queue_jobs', { state: 'waiting' }), 1);
  t.is(sampleValue(samples, 'bss_queue_jobs', { state: 'delayed' }), 1);
  for (const state of ['active', 'completed', 'failed']) {
    t.is(sampleValue(samples, 'bss_queue_jobs', { state }), 0, state);
  }
  await queue.remove('metrics-waiting');
  await queue.remove('metrics-delayed');
});

test.serial('a completed simulation is counted by preset and outcome with its queue wait and compute time', async (t) => {
  const worker = await startTestWorker({ redisPrefix: app.redisPrefix });
  t.teardown(() => worker.close());
  const account = await buildAccount(app.services.pool, { plan: 'enterprise' });
  const { key } = await buildApiKey(app.services.pool, account.id);
  const response = await postSimulation(app, { preset: 'mobile', num_interactions: 20, seed: 3 }, { key });
  t.is(response.status, 200, response.text);
  const samples = await scrape(app.url);
  t.is(sampleValue(samples, 'bss_simulations_total', { preset: 'mobile_app', outcome: 'completed' }), 1);
  t.is(sampleValue(samples, 'bss_simulation_queue_wait_seconds_count', { preset: 'mobile_app' }), 1);
  t.is(sampleValue(samples, 'bss_simulation_compute_seconds_count', { preset: 'mobile_app' }), 1);
  t.is(
    sampleValue(samples, 'bss_http_request_duration_seconds_count', { method: 'POST', route: '/v1/simulations', status_code: '200' }),
    1,
  );
});

test.serial('limit rejections on POST /v1/simulations are counted by code', async (t) => {
  const worker = await startTestWorker({ redisPrefix: app.redisPrefix });
  t.teardown(() => worker.close());
  const caller = await buildCaller(app.services.pool, { requests_per_minute: 2, max_interactions_per_request: 10 });
  t.is((await postSimulation(app, { preset: 'finance', num_interactions: 11 }, { key: caller.key })).status, 403);
  t.is((await postSimulation(app, { preset: 'finance', num_interactions: 1 }, { key: caller.key })).status, 200);
  t.is((await postSimulation(app, { preset: 'finance', num_interactions: 1 }, { key: caller.key })).status, 429);
  t.is((await postSimulation(app, { preset: 'finance', num_interactions: 1 }, { key: caller.key })).status, 429);
  const samples = await scrape(app.url);
  t.is(sampleValue(samples, 'bss_limit_rejections_total', { code: 'rate_limit_exceeded' }), 2);
  t.is(sampleValue(samples, 'bss_limit_rejections_total', { code: 'interactions_per_request_exceeded' }), 1);
});

test.serial("a worker process's pool threads are reported while it runs and dropped once it stops", async (t) => {
  const worker = await spawnWorkerProcess({ redisPrefix: app.redisPrefix, threads: 2 });
  t.teardown(() => worker.stop());
  const name = (labels: Record<string, string>): boolean => labels.worker?.endsWith(`:${worker.pid}`) === true;
  const gauge = (samples: readonly Sample[], metric: string): number | undefined =>
    samples.find((sample) => sample.name === metric && name(sample.labels))?.value;
  // Published on connect and every 5 s; threads still starting count as busy until they are up.
  const running = await eventually(async () => {
    const samples = await scrape(app.url);
    return gauge(samples, 'bss_worker_pool_threads') === 2 && gauge(samples, 'bss_worker_pool_threads_busy') === 0 ? samples : undefined;
  });
  t.is(gauge(running, 'bss_worker_pool_queued_tasks'), 0);
  t.is(sampleValue(running, 'bss_worker_processes'), 1);

  t.is(await worker.stop(), 0);
  const stopped = await scrape(app.url);
  t.false(stopped.some((sample) => sample.name.startsWith('bss_worker_pool') && name(sample.labels)));
  t.is(sampleValue(stopped, 'bss_worker_processes'), 0);
});

test('with METRICS_TOKEN set, /metrics demands it as a Bearer token and answers 401 in the error envelope otherwise', async (t) => {
  const guarded = await startTestApp({ env: { METRICS_TOKEN: 'metrics-token-for-tests-0123456789' } });
  t.teardown(() => guarded.close());

  const missing = await fetch(`${guarded.url}/metrics`);
  t.is(missing.status, 401);
  const missingBody = (await missing.json()) as { error: { message: string; details: { code: string }; request_id: string } };
  t.is(missingBody.error.details.code, 'authentication_required');
  // The caller is told what opens it: the operator token, not an API key or a session.
  t.regex(missingBody.error.message, /operator token/);
  t.notRegex(missingBody.error.message, /API key|sign in/);
  t.is(missingBody.error.request_id, missing.headers.get('x-request-id') ?? 'missing header');
  t.regex(missing.headers.get('www-authenticate') ?? '', /^Bearer realm="metrics"/);

  for (const authorization of ['Bearer wrong-token', 'Bearer metrics-token-for-tests-012345678', 'Basic Og==', 'Bearer  metrics-token-for-tests-0123456789']) {
    const wrong = await fetch(`${guarded.url}/metrics`, { headers: { Authorization: authorization } });
    t.is(wrong.status, 401, authorization);
    const wrongBody = (await wrong.json()) as { error: { message: string; details: { code: string } } };
    t.is(wrongBody.error.details.code, 'invalid_credentials');
    t.regex(wrongBody.error.message, /operator token/);
  }

  const samples = await scrape(guarded.url, 'metrics-token-for-tests-0123456789');
  t.true(samples.length > 0);
});

test('each app has its own registry: one app\'s requests never show in another\'s metrics', async (t) => {
  const other = await startTestApp({ database: app.database });
  t.teardown(() => other.close());
  await fetch(`${other.url}/v1/presets`);
  await fetch(`${other.url}/v1/presets`);
  const samples = await scrape(other.url);
  t.is(sampleValue(samples, 'bss_http_request_duration_seconds_count', { method: 'GET', route: '/v1/presets', status_code: '200' }), 2);
});
