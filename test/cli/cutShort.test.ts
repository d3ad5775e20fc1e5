import { mkdtemp, readdir } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { resetSocket } from '../helpers/resetSocket.ts';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { startTestWorker } from '../helpers/startTestWorker.ts';
import type { SimulationWorker } from '../../worker/startSimulationWorker.ts';
import { runCli } from './spawnCli.ts';

let app: TestApp;
let worker: SimulationWorker;
let cutter: net.Server;
let cutterUrl: string;
const CUT_AFTER_BYTES = 256 * 1024;

test.before(async () => {
  app = await startTestApp();
  worker = await startTestWorker({ redisPrefix: app.redisPrefix });
  // Between the CLI and the app: forwards the request, then resets the connection once a quarter MiB of
  // the answer has gone through, as a network failure (or a run failing mid-stream) would.
  const appPort = Number(new URL(app.url).port);
  cutter = net.createServer((client) => {
    const upstream = net.connect(appPort, '127.0.0.1');
    let forwarded = 0;
    client.pipe(upstream);
    upstream.on('data', (chunk: Buffer) => {
      forwarded += chunk.length;
      if (forwarded > CUT_AFTER_BYTES) {
        resetSocket(client);
        upstream.destroy();
      } else {
        client.write(chunk);
      }
    });
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => cutter.listen(0, '127.0.0.1', () => resolve()));
  cutterUrl = `http://127.0.0.1:${(cutter.address() as net.AddressInfo).port}`;
});

test.after.always(async () => {
  await new Promise((resolve) => cutter?.close(resolve));
  await worker?.close();
  await app?.close();
});

test('a body cut short exits 1 and leaves no file behind, not even a partial one', async (t) => {
  const account = await buildAccount(app.services.pool, { plan: 'enterprise' });
  const key = await buildApiKey(app.services.pool, account.id);
  const directory = await mkdtemp(join(tmpdir(), 'bss-cut-'));
  const run = await runCli(['simulate', '--preset', 'finance', '-n', '50000', '--out', join(directory, 'run.json')], { url: cutterUrl, key: key.key });
  t.is(run.code, 1);
  t.regex(run.stderr, /^bss: the body was cut short from http:\/\/127\.0\.0\.1:\d+\/v1\/simulations: .+\n$/);
  t.deepEqual(await readdir(directory), []);
});
