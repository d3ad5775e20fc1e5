import test from 'ava';
import { BssConnectionError, createBssClient } from '../../sdk/index.ts';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import { type CutAnswers, startTcpProxy, type TcpProxy } from '../helpers/startTcpProxy.ts';
import type { TestApp } from '../helpers/startTestApp.ts';
import { useFileStack } from '../helpers/useFileStack.ts';

let app: TestApp;
const proxies: TcpProxy[] = [];
useFileStack(test, (started) => {
  app = started;
});
test.after.always(async () => {
  await Promise.all(proxies.map((proxy) => proxy.close()));
});
const cutting = async (cutAnswers: CutAnswers): Promise<TcpProxy> => {
  const proxy = await startTcpProxy(Number(new URL(app.url).port), { cutAnswers });
  proxies.push(proxy);
  return proxy;
};

const collect = async (bytes: AsyncIterable<Uint8Array>): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const chunk of bytes) {
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
};

const proClient = async (baseUrl?: string) => {
  const account = await buildAccount(app.services.pool, { plan: 'pro' });
  const key = (await buildApiKey(app.services.pool, account.id)).key;
  return { key, client: createBssClient({ baseUrl: baseUrl ?? app.url, apiKey: key }) };
};

test.serial('downloadRecords resumes a connection cut twice mid-body with Range and If-Range; the bytes are the whole body', async (t) => {
  const proxy = await cutting({ afterBytes: 200_000, maxCuts: 2, pathPattern: /\/records$/ });
  const { key, client: direct } = await proClient();
  const run = await direct.streamSimulation({ preset: 'finance', num_interactions: 10_000, seed: 4 }, 'csv');
  const whole = await collect(run.bytes);
  const viaProxy = createBssClient({ baseUrl: proxy.url, apiKey: key });
  const download = await viaProxy.downloadRecords(run.simulation.id!, 'csv');
  t.regex(download.etag ?? '', /^"/);
  // Stated once some answer made the whole body (this run's first replay is the download itself).
  t.true(download.total === undefined || download.total === whole.length);
  const got = await collect(download.bytes);
  t.is(proxy.cuts(), 2, 'the proxy cut two answers');
  t.is(download.resumes(), 2);
  t.true(got.equals(whole), 'the resumed bytes are the body, byte for byte');
});

test.serial('without resumes left, a cut download throws BssConnectionError (cut_short) rather than end short', async (t) => {
  const proxy = await cutting({ afterBytes: 100_000, maxCuts: 5, pathPattern: /\/records$/ });
  const { key, client: direct } = await proClient();
  const run = await direct.streamSimulation({ preset: 'finance', num_interactions: 5000, seed: 4 }, 'ndjson');
  await collect(run.bytes);
  const download = await createBssClient({ baseUrl: proxy.url, apiKey: key }).downloadRecords(run.simulation.id!, 'ndjson', { maxResumes: 1 });
  const error = await t.throwsAsync(collect(download.bytes), { instanceOf: BssConnectionError });
  t.is(error?.kind, 'cut_short');
});

test('createDownloadLink makes a link that downloadLink reads without credentials, resuming like downloadRecords', async (t) => {
  const { client } = await proClient();
  const run = await client.streamSimulation({ preset: 'healthcare', num_interactions: 3000, seed: 9 }, 'parquet');
  const whole = await collect(run.bytes);
  const link = await client.createDownloadLink(run.simulation.id!, { format: 'parquet', expiresIn: 120 });
  t.is(link.format, 'parquet');
  const local = `${app.url}${new URL(link.url).pathname}`;
  const anonymous = createBssClient({ baseUrl: app.url });
  t.true((await collect((await anonymous.downloadLink(local)).bytes)).equals(whole));
});

test('simulations ask for zstd, br or gzip and are decoded: the records are those of an uncoded answer', async (t) => {
  const sent: Request[] = [];
  const { key } = await proClient();
  const client = createBssClient({ baseUrl: app.url, apiKey: key, fetch: (request) => (sent.push(request.clone()), fetch(request)) });
  const run = await client.streamSimulation({ preset: 'mobile_app', num_interactions: 4000, seed: 2 }, 'ndjson');
  const coded = await collect(run.bytes);
  t.is(sent[0]?.headers.get('accept-encoding'), 'zstd, br, gzip');
  t.is(run.response.headers.get('content-encoding'), 'zstd');
  const plain = await fetch(`${app.url}/v1/simulations/${run.simulation.id}/records`, { headers: { Authorization: `Bearer ${key}`, Accept: 'application/x-ndjson', 'Accept-Encoding': 'identity' } });
  t.true(Buffer.from(await plain.arrayBuffer()).equals(coded));
});
