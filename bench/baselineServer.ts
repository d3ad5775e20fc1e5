import Koa from 'koa';
import { randomUUID } from 'node:crypto';
import { jsonBody } from '../api/middleware/jsonBody.ts';
import type { AppState } from '../api/AppState.ts';
import { ENGINE_VERSION, resolvePreset, writeRecordsJson } from '../shared/engine/index.ts';
import { API_VERSION } from '../shared/version.ts';
import { resultEnvelope } from '../worker/resultEnvelope.ts';

// The benchmark's two baselines, in a process of their own like the API: GET /hello is a bare Koa
// hello-world; POST /inline runs the engine in the handler (no authentication, no ledger, no queue), the
// ceiling a single process can serve the same result at.
const app = new Koa<AppState>();
const hello = Buffer.from('Hello World');
const inline = jsonBody();

app.use(async (ctx, next) => {
  if (ctx.method === 'GET' && ctx.path === '/hello') {
    ctx.body = hello;
    return;
  }
  if (ctx.method === 'POST' && ctx.path === '/inline') {
    await inline(ctx, next);
    return;
  }
  await next();
});
app.use((ctx) => {
  const body = ctx.state.body as { preset: string; num_interactions: number; seed: number };
  const preset = resolvePreset(body.preset);
  if (preset === undefined) {
    ctx.status = 422;
    return;
  }
  const task = {
    simulationId: randomUUID(),
    preset: preset.name,
    profile: preset.default_profile,
    seed: body.seed,
    numInteractions: body.num_interactions,
    serviceVersion: ENGINE_VERSION,
    apiVersion: API_VERSION,
    format: 'json' as const,
  };
  const started = performance.now();
  const envelope = resultEnvelope(task);
  const data = writeRecordsJson(task);
  ctx.type = 'application/json';
  ctx.body = Buffer.concat([envelope.head, data, envelope.tail(Math.round(performance.now() - started), undefined)]);
});

const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write('baseline ready\n');
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
