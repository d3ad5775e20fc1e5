import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium } from 'playwright-core';
import { createLogger } from '../../shared/logger.ts';
import type { SimulationWorker } from '../../worker/startSimulationWorker.ts';
import { startStreamWorker, type StreamWorker } from '../../worker/streams/startStreamWorker.ts';
import { startTestApp, type TestApp } from './startTestApp.ts';
import { startTestIdp, type TestIdp } from './startTestIdp.ts';
import { startTestWorker } from './startTestWorker.ts';
import { startTcpProxy } from './startTcpProxy.ts';
import { TEST_REDIS } from './testRedis.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Where browser tests write their screenshots: gitignored under test-artifacts/, or BROWSER_ARTIFACTS_DIR. */
const BROWSER_ARTIFACTS = process.env.BROWSER_ARTIFACTS_DIR ?? path.join(ROOT, 'test-artifacts', 'browser');

const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Debian's chromium, headless, with everything that would reach the internet switched off: the tests
 * must pass on a machine without network access.
 */
export const launchChromium = (): Promise<Browser> =>
  chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });

/** A folder of its own per test file under test-artifacts/browser/. */
export const artifactsDir = async (name: string): Promise<string> => {
  const directory = path.join(BROWSER_ARTIFACTS, name);
  await mkdir(directory, { recursive: true });
  return directory;
};

export interface BrowserStack {
  /** The origin the browser uses (and the app's PUBLIC_URL and FRONTEND_URL). */
  readonly url: string;
  readonly app: TestApp;
  readonly idp: TestIdp;
  readonly close: () => Promise<void>;
}

export interface BrowserStackOptions {
  /** A stream worker too (docs/streams.md: the streams' clocks and webhooks), for the Streams page. */
  readonly streams?: boolean;
}

/**
 * The whole service as a browser meets it: the app, a simulation worker (and, when asked, a stream worker)
 * and the local identity provider.
 */
export const startBrowserStack = async (options: BrowserStackOptions = {}): Promise<BrowserStack> => {
  // The app's PUBLIC_URL (OAuth redirect URI, CSRF origin check) has to be the address the browser really
  // uses, but startTestApp picks its port only once its configuration is parsed: a front door whose port
  // exists first, and whose origin becomes PUBLIC_URL, forwards to the app once it listens.
  const front = await startTcpProxy(0);
  const frontUrl = `http://127.0.0.1:${front.port}`;
  const idp = await startTestIdp();
  let app: TestApp | undefined;
  let worker: SimulationWorker | undefined;
  let streamWorker: StreamWorker | undefined;
  try {
    app = await startTestApp({ env: { ...idp.env, PUBLIC_URL: frontUrl } });
    front.forwardTo(Number(new URL(app.url).port));
    worker = await startTestWorker({ redisPrefix: app.redisPrefix, threads: 1 });
    if (options.streams === true) {
      streamWorker = await startStreamWorker({
        redis: TEST_REDIS,
        redisPrefix: app.redisPrefix,
        databaseUrl: app.database.url,
        threads: 1,
        concurrency: 10,
        sessionSecret: app.services.config.sessionSecret,
        webhookAllowPrivate: true,
        logger: createLogger('silent', 'worker'),
      });
      await streamWorker.ready();
    }
  } catch (error) {
    await worker?.close();
    await app?.close();
    await front.close();
    await idp.stop();
    throw error;
  }
  const started = app;
  const startedWorker = worker;
  const startedStreams = streamWorker;
  return {
    url: frontUrl,
    app: started,
    idp,
    close: async () => {
      await front.close();
      await startedStreams?.close();
      await startedWorker.close();
      await started.close();
      await idp.stop();
    },
  };
};
