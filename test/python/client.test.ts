import test from 'ava';
import path from 'node:path';
import type { TestApp } from '../helpers/startTestApp.ts';
import { useFileStack } from '../helpers/useFileStack.ts';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import { CLIENT_DIR, createPythonEnvironment, type PythonEnvironment, run } from './pythonEnvironment.ts';
import { type FixtureServer, startFixtureServer } from './startFixtureServer.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/startTcpProxy.ts';

// The Python client (clients/python) against the real service: this file starts the app and a worker,
// installs the client into a virtual environment once, and runs each of its unittest modules as one test
// (each reports within ava's timeout; serial, so the modules do not compete for the machine).
let app: TestApp;
let fixtures: FixtureServer | undefined;
let cutter: TcpProxy | undefined;
let streamCutter: TcpProxy | undefined;
let python: PythonEnvironment | undefined;
let env: Record<string, string>;

useFileStack(test, async (started) => {
  app = started;
  fixtures = await startFixtureServer(app.services.pool);
  cutter = await startTcpProxy(Number(new URL(app.url).port), { cutAnswers: { afterBytes: 150_000, maxCuts: 2, pathPattern: /\/records$/ } });
  // A live stream's events cut twice mid-body (test_streams_live resumes across them with Last-Event-ID).
  streamCutter = await startTcpProxy(Number(new URL(app.url).port), { cutAnswers: { afterBytes: 20_000, maxCuts: 2, pathPattern: /\/events$/ } });
  const account = await buildAccount(app.services.pool, { plan: 'pro' });
  env = { BSS_API_URL: app.url, BSS_API_KEY: (await buildApiKey(app.services.pool, account.id)).key, BSS_TEST_FIXTURES_URL: fixtures.url, BSS_TEST_CUT_URL: cutter.url, BSS_TEST_STREAM_CUT_URL: streamCutter.url };
  python = await createPythonEnvironment();
});

test.after.always(async () => {
  await fixtures?.close();
  await cutter?.close();
  await streamCutter?.close();
  await python?.remove();
});

const unittest = async (module: string) => {
  if (python === undefined) {
    throw new Error('no Python environment');
  }
  return run(python.python, ['-m', 'unittest', '-v', module], { cwd: path.join(CLIENT_DIR, 'tests'), env });
};

test.serial('`pip install ./clients/python` installs the client offline (no package index) into a fresh virtual environment', (t) => {
  t.is(python?.install.code, 0, python?.install.output);
  t.regex(python?.install.output ?? '', /Successfully installed bss-\d+\.\d+\.\d+/);
});

const modules: ReadonlyArray<readonly [string, string]> = [
  ['test_errors', 'every documented error code the client can meet raises bss.ApiError with its status, code and request id'],
  ['test_retries', 'a 429 of the real rate limiter is retried after its Retry-After and succeeds; 429/503 at most 3 times; unreachable is ApiConnectionError'],
  ['test_streams', 'iter_records streams 100,000 NDJSON records in bounded memory; a body cut short raises IncompleteBodyError'],
  ['test_formats', 'downloads equal the API body byte for byte in JSON, NDJSON and CSV; to_pandas() types columns int64, float64 and string'],
  ['test_history', 'history() follows next_cursor over every page; an idempotent replay answers the first run and appears once'],
  ['test_keys', 'keys.list/create/revoke/roll manage API keys; a repeated create answers the key without its secret'],
  ['test_download', 'download() resumes a cut connection with Range and If-Range, starts again on a 200, and leaves no partial file'],
  ['test_resume', 'download() through a connection cut twice mid-body resumes against the real service and writes the API body byte for byte'],
  ['test_scenarios', 'a matched pair of engine-3 runs, with and without a market_crash, differs in pandas only inside the event and after it in its sequence; the scenario is echoed, streamed, replayed and refused with the bad field named'],
  ['test_datasets', 'dataset() writes a random scenario run as a TimeEval or NAB zip whose labels are the run\'s; a run without a scenario raises ApiError 422'],
  ['test_models', 'client.models put/get/list/validate/delete speak the Models endpoints; simulate(model=...) runs a model into pandas with nulls; every gallery model validates and runs'],
  ['test_streams_live', 'client.streams create/get/list/cancel live streams; events() yields the envelopes in order (the records of simulate(order="time")), resumes after a position and across cut connections, and raises stream_not_found'],
  ['test_package', 'the package exports its names, is typed, parses as Python 3.10, explains a missing pandas or pyarrow, and reads Parquet strings with the dtype of CSV and NDJSON'],
];

for (const [module, behaviour] of modules) {
  test.serial(`python ${module}: ${behaviour}`, async (t) => {
    const result = await unittest(module);
    t.is(result.code, 0, result.output);
    t.regex(result.output, /\nOK\b/, result.output);
    t.notRegex(result.output, /skipped/i, 'no test is skipped');
  });
}

test.serial('examples/quickstart.py runs against the service from top to bottom', async (t) => {
  if (python === undefined) {
    throw new Error('no Python environment');
  }
  const result = await run(python.python, [path.join(CLIENT_DIR, 'examples', 'quickstart.py')], { env });
  t.is(result.code, 0, result.output);
  t.regex(result.output, /portfolio_value\s+float64/);
  t.regex(result.output, /crash window: \d+ records, cumulative daily_return -\d/);
  t.regex(result.output, /identical before step 20: True/);
  t.regex(result.output, /422 validation_failed/);
});
