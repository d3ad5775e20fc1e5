import test from 'ava';
import { createLogger } from '../../shared/logger.ts';
import { createRedis } from '../../shared/redis/createRedis.ts';
import { appendReplyBy } from '../../worker/appendReplyBy.ts';
import { freePort } from '../helpers/freePort.ts';
import { startRedisServer } from '../helpers/startRedisServer.ts';
import { startTcpProxy } from '../helpers/tcpProxy.ts';

const REPLY = { outcome: 'failed', simulationId: '00000000-0000-4000-8000-000000000001', startedAt: 1, finishedAt: 2 } as const;

test('a final reply Redis refuses for a while is appended once Redis is back, before the run\'s deadline', async (t) => {
  const redis = await startRedisServer();
  t.teardown(() => redis.stop());
  // The worker's fail-fast connection goes through a proxy that leads nowhere at first: every command is
  // refused at once, as while a replica is being promoted or Redis restarts.
  const proxy = await startTcpProxy(await freePort());
  t.teardown(() => proxy.close());
  const client = createRedis({ kind: 'single', url: `redis://127.0.0.1:${proxy.port}` }, { role: 'worker:events', logger: createLogger('silent', 'test') });
  t.teardown(() => client.disconnect());
  const refused = new Promise<void>((resolve) => client.once('error', () => resolve()));

  const appended = appendReplyBy(client, 'replies:test', REPLY, Date.now() + 60_000);
  await refused;
  proxy.forwardTo(redis.port);

  const id = await appended;
  const entries = await redis.admin.xrange('replies:test', '-', '+');
  t.deepEqual(entries.map(([entryId]) => entryId), [id]);
  t.deepEqual(JSON.parse(entries[0]?.[1][1] ?? 'null'), REPLY);
});

test('a reply that cannot be appended by the deadline fails, so the job fails instead of waiting on', async (t) => {
  const proxy = await startTcpProxy(await freePort());
  t.teardown(() => proxy.close());
  const client = createRedis({ kind: 'single', url: `redis://127.0.0.1:${proxy.port}` }, { role: 'worker:events', logger: createLogger('silent', 'test') });
  t.teardown(() => client.disconnect());
  await t.throwsAsync(appendReplyBy(client, 'replies:test', REPLY, Date.now() + 200));
});
