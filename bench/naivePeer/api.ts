import Koa from 'koa';
import { Queue, QueueEvents } from 'bullmq';
import { jsonBody } from '../../api/middleware/jsonBody.ts';
import type { AppState } from '../../api/AppState.ts';
import { NAIVE_QUEUE, naiveConnection } from './naiveConnection.ts';

// The naive peer's API, as BullMQ's documentation builds it: Koa → Queue.add → job.waitUntilFinished with
// a QueueEvents, the job's return value as the body. No authentication, limits, ledger or streaming; a
// failed wait (a worker error, or BullMQ's "Missing key … isFinished" when a job completed and was removed
// before the wait looked) is Koa's plain 500.
const connection = naiveConnection();
const queue = new Queue(NAIVE_QUEUE, { connection });
const queueEvents = new QueueEvents(NAIVE_QUEUE, { connection });
const app = new Koa<AppState>();
// The plain 500s are counted by the bench; a stack trace each would only load the pipe it reads.
app.silent = true;

app.use(jsonBody());
app.use(async (ctx) => {
  if (ctx.method !== 'POST' || ctx.path !== '/simulations') {
    ctx.status = 404;
    return;
  }
  // removeOnComplete: the docs' simplest way to keep Redis from filling with finished jobs.
  const job = await queue.add('simulate', ctx.state.body, { removeOnComplete: true, removeOnFail: 1000 });
  const result: unknown = await job.waitUntilFinished(queueEvents, 30_000);
  ctx.type = 'application/json';
  ctx.body = result;
});

await Promise.all([queue.waitUntilReady(), queueEvents.waitUntilReady()]);
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write('naive api ready\n');
});
process.on('SIGTERM', () => {
  server.close(() => {
    Promise.all([queueEvents.close(), queue.close()]).then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
});
