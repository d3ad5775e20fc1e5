import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { authorizeAtIdp, followCallback, setCookieFor, startLogin, TEST_FRONTEND_URL, TEST_PUBLIC_URL } from '../helpers/signInWithIdp.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { getAccount } from './authFixtures.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

let child: ChildProcess;
let idpUrl: string;
let app: TestApp;

/** `npm run dev:idp` as a developer runs it; resolves with the variables it prints. */
const startDevIdpProcess = async (): Promise<Record<string, string>> => {
  child = spawn(process.execPath, [path.join(ROOT, 'scripts/devIdp.ts'), '--port', '0', '--subject', '777', '--email', 'cli@example.test', '--name', 'Cli Person'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`dev:idp did not start:\n${output}`)), 20_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes('Ctrl-C stops.')) {
        clearTimeout(timer);
        resolve(Object.fromEntries([...output.matchAll(/^ {2}export (\w+)=(\S+)$/gm)].map((match) => [match[1] ?? '', match[2] ?? ''])));
      }
    });
    child.once('exit', () => reject(new Error(`dev:idp exited:\n${output}`)));
  });
};

test.before(async () => {
  const env = await startDevIdpProcess();
  idpUrl = new URL(env.OAUTH_GOOGLE_TOKEN_URL ?? '').origin;
  app = await startTestApp({ env: { ...env, PUBLIC_URL: TEST_PUBLIC_URL, FRONTEND_URL: TEST_FRONTEND_URL } });
});

test.after.always(async () => {
  await app?.close();
  if (child !== undefined && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
});

/** The browser's round trip, with the dev IdP answering whatever it is currently set to. */
const browserLogin = async (provider: 'github' | 'google'): Promise<Response> => {
  const started = await startLogin(app, provider);
  const callback = await authorizeAtIdp(started.authorizeUrl);
  return followCallback(app, callback, [started.preLoginCookie]);
};

test.serial('npm run dev:idp prints every OAUTH_* variable and signs in as the identity given on its command line', async (t) => {
  for (const provider of ['github', 'google'] as const) {
    const response = await browserLogin(provider);
    t.is(response.headers.get('location'), `${TEST_FRONTEND_URL}/account`);
    const account = await getAccount(app, setCookieFor(response, 'service_session')?.split(';')[0]);
    t.is(account.body.email, 'cli@example.test');
    t.is(account.body.display_name, 'Cli Person');
  }
});

test.serial('a developer switches identity and simulates denied consent through the control endpoints', async (t) => {
  const changed = await fetch(`${idpUrl}/_dev/identity`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ subject: '888', email: 'second@example.test', emailVerified: false, name: 'Second Person' }),
  });
  t.is(changed.status, 200);
  const signedIn = await browserLogin('github');
  const account = await getAccount(app, setCookieFor(signedIn, 'service_session')?.split(';')[0]);
  t.is(account.body.email, 'second@example.test');

  t.is((await fetch(`${idpUrl}/_dev/deny-next`, { method: 'POST' })).status, 200);
  const denied = await browserLogin('google');
  t.is(denied.headers.get('location'), `${TEST_FRONTEND_URL}/account?error=access_denied`);
  t.is(setCookieFor(denied, 'service_session'), undefined);
});
