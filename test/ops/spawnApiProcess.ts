import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TEST_REDIS_URL } from '../helpers/testRedis.ts';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A port nothing listens on right now, for a child process to take. */
export const freePort = async (): Promise<number> => {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
};

export interface ServiceProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly url: string;
  /** Everything the process wrote so far. */
  readonly output: () => string;
  /** Resolves with the exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code. */
  readonly stop: (graceMs?: number) => Promise<number | null>;
}

/** Starts a Node entry point as production does and resolves once its output includes `readyLine`. */
export const spawnService = async (options: {
  readonly script: string;
  readonly env: Record<string, string>;
  readonly readyLine: string;
  readonly url?: string;
  readonly timeoutMs?: number;
}): Promise<ServiceProcess> => {
  const child = spawn(process.execPath, [path.join(ROOT, options.script)], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', LOG_LEVEL: 'info', REDIS_URL: TEST_REDIS_URL, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const chunks: string[] = [];
  const output = (): string => chunks.join('');
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${options.script} did not start:\n${output()}`)), options.timeoutMs ?? 20_000);
    const onData = (chunk: Buffer): void => {
      chunks.push(chunk.toString('utf8'));
      if (output().includes(options.readyLine)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`${options.script} exited before it was ready:\n${output()}`));
    });
  });
  const stop = async (graceMs = 15_000): Promise<number | null> => {
    if (child.exitCode !== null || child.signalCode !== null) {
      return child.exitCode;
    }
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    const code = await exited;
    clearTimeout(timer);
    return code;
  };
  return { child, pid: child.pid ?? -1, url: options.url ?? '', output, exited, stop };
};

/** `node api/server.ts` on its own port against a test database and Redis prefix. */
export const spawnApiProcess = async (options: {
  readonly databaseUrl: string;
  readonly redisPrefix: string;
  readonly port?: number;
  readonly env?: Record<string, string>;
}): Promise<ServiceProcess> => {
  const port = options.port ?? (await freePort());
  return spawnService({
    script: 'api/server.ts',
    env: { DATABASE_URL: options.databaseUrl, REDIS_PREFIX: options.redisPrefix, PORT: String(port), ...options.env },
    readyLine: '"msg":"api listening"',
    url: `http://127.0.0.1:${port}`,
  });
};

export interface PlainResponse {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly text: string;
}

/**
 * One request on a connection of its own (no keep-alive pool), so it reaches whichever process the kernel
 * gives a new connection to, and a closed listener shows as ECONNREFUSED.
 */
export const requestOnNewConnection = (
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string; keepAlive?: boolean } = {},
): Promise<PlainResponse> =>
  new Promise((resolve, reject) => {
    // keepAlive asks the server to keep the connection (what a pooling client does); the socket is new either way.
    const headers = { ...init.headers, Connection: init.keepAlive ? 'keep-alive' : 'close' };
    const request = http.request(url, { method: init.method ?? 'GET', headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(init.body);
  });

/** POST /v1/simulations on a connection of its own. */
export const simulate = (baseUrl: string, key: string, body: Record<string, unknown>): Promise<PlainResponse> =>
  requestOnNewConnection(`${baseUrl}/v1/simulations`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
