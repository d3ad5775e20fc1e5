import test from 'ava';
import { createDatabasePool } from '../../shared/db/createDatabasePool.ts';
import { findSimulation } from '../../shared/db/queries/simulations.ts';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/startTcpProxy.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { startTestWorker } from '../helpers/startTestWorker.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.ts';
import { postSimulation } from './postSimulation.ts';
import { ledgerWritten } from '../helpers/ledgerWritten.ts';

// The API reaches PostgreSQL through a proxy that can let a ledger statement commit and then lose its
// acknowledgement with the connection (issue 18.1): what the client is told must agree with the ledger.
let database: TestDatabase;
let proxy: TcpProxy;
let app: TestApp;
let stopWorker: () => Promise<void>;

test.before(async () => {
  database = await createTestDatabase();
  proxy = await startTcpProxy(5432);
  const url = new URL(database.url);
  url.port = String(proxy.port);
  app = await startTestApp({ database, env: { DATABASE_URL: url.toString() } });
  const worker = await startTestWorker({ redisPrefix: app.redisPrefix });
  stopWorker = () => worker.close();
});

test.after.always(async () => {
  await stopWorker?.();
  await app?.close();
  await proxy?.close();
  await database?.drop();
});

const usageOf = async (key: string): Promise<any> =>
  (await fetch(`${app.url}/v1/usage`, { headers: { Authorization: `Bearer ${key}` } })).json();

const caller = async (): Promise<string> => {
  const pool = await createDatabasePool(database.url);
  try {
    const account = await buildAccount(pool);
    return (await buildApiKey(pool, account.id)).key;
  } finally {
    await pool.end();
  }
};

test.serial('a settlement that committed but lost its acknowledgement is retried: the client gets its 200 and the run is counted once', async (t) => {
  const key = await caller();
  // The ledger statement whose parameters carry the settlement's status (admissions carry none).
  const lost = proxy.loseReplyTo('{"completed"}');
  const response = await postSimulation(app, { preset: 'finance', num_interactions: 3, seed: 7 }, { key });
  await lost;
  t.is(response.status, 200);
  await ledgerWritten(app.services);
  t.is((await findSimulation(app.services.pool, response.body.simulation_id))?.status, 'completed');
  t.like(await usageOf(key), { usage: { requests: 1, interactions: 3 } });
});

test.serial('an admission whose ledger row committed but lost its acknowledgement is retried: the run is answered and counted once', async (t) => {
  const key = await caller();
  // The ledger statement whose parameters carry the new row's preset (settlements carry none).
  const lost = proxy.loseReplyTo('{"finance"}');
  const response = await postSimulation(app, { preset: 'finance', num_interactions: 2, seed: 8 }, { key });
  await lost;
  t.is(response.status, 200);
  await ledgerWritten(app.services);
  t.is((await findSimulation(app.services.pool, response.body.simulation_id))?.status, 'completed');
  t.like(await usageOf(key), { usage: { requests: 1, interactions: 2 } });
});
