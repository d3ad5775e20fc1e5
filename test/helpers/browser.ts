import { mkdir } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium } from 'playwright-core';
import type { SimulationWorker } from '../../worker/startSimulationWorker.ts';
import { startTestApp, type TestApp } from './startTestApp.ts';
import { startTestIdp, type TestIdp } from './startTestIdp.ts';
import { startTestWorker } from './startTestWorker.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Where browser tests write their screenshots (gitignored under test-artifacts/). */
export const BROWSER_ARTIFACTS = path.join(ROOT, 'test-artifacts', 'browser');

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

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

/**
 * A loopback port that forwards to a target chosen later. The app's PUBLIC_URL (OAuth redirect URI, CSRF
 * origin check) has to be the address the browser really uses, but startTestApp picks its port only
 * once its configuration is parsed; this port exists first, and its origin becomes PUBLIC_URL.
 */
const startFrontDoor = async (): Promise<{ url: string; forwardTo: (port: number) => void; close: () => Promise<void> }> => {
  let target = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target, '127.0.0.1');
    sockets.add(client).add(upstream);
    client.pipe(upstream).pipe(client);
    const drop = (): void => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    forwardTo: (next) => {
      target = next;
    },
    close: async () => {
      for (const socket of sockets) {
        socket.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};

export interface BrowserStack {
  /** The origin the browser uses (and the app's PUBLIC_URL and FRONTEND_URL). */
  readonly url: string;
  readonly app: TestApp;
  readonly idp: TestIdp;
  readonly close: () => Promise<void>;
}

/** The whole service as a browser meets it: the app, a simulation worker and the local identity provider. */
export const startBrowserStack = async (): Promise<BrowserStack> => {
  const front = await startFrontDoor();
  const idp = await startTestIdp();
  let app: TestApp | undefined;
  let worker: SimulationWorker | undefined;
  try {
    app = await startTestApp({ env: { ...idp.env, PUBLIC_URL: front.url } });
    front.forwardTo(Number(new URL(app.url).port));
    worker = await startTestWorker({ redisPrefix: app.redisPrefix, threads: 1 });
  } catch (error) {
    await app?.close();
    await front.close();
    await idp.stop();
    throw error;
  }
  const started = app;
  const startedWorker = worker;
  return {
    url: front.url,
    app: started,
    idp,
    close: async () => {
      await front.close();
      await startedWorker.close();
      await started.close();
      await idp.stop();
    },
  };
};
