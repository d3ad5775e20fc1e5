import { spawn } from 'node:child_process';
import net from 'node:net';
import { Redis } from 'ioredis';
import { eventually } from './eventually.ts';
import { freePort } from './freePort.ts';

export interface RedisServer {
  readonly port: number;
  /** redis://… with the password when one is set. */
  readonly url: string;
  /** A connection of the test's own (admin commands: FLUSHALL, CONFIG, CLIENT KILL). */
  readonly admin: Redis;
  readonly stop: () => Promise<void>;
}

/**
 * A redis-server of the test's own on a free port, in memory only, so a test may flush it, kill its
 * clients or change its password without touching the shared server.
 */
export const startRedisServer = async (options: { readonly password?: string } = {}): Promise<RedisServer> => {
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  if (options.password !== undefined) {
    args.push('--requirepass', options.password);
  }
  const child = spawn('redis-server', args, { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = options.password === undefined ? `redis://127.0.0.1:${port}` : `redis://:${options.password}@127.0.0.1:${port}`;
  // Listening once a TCP connection is accepted; the client is made only then.
  await eventually(
    () =>
      new Promise<true | undefined>((resolve) => {
        const socket = net.connect(port, '127.0.0.1');
        socket.once('connect', () => {
          socket.destroy();
          resolve(true);
        });
        socket.once('error', () => resolve(undefined));
      }),
    10_000,
    50,
  );
  const admin = new Redis(url, { maxRetriesPerRequest: null, connectionName: 'test:admin' });
  admin.on('error', () => {});
  await admin.ping();
  return {
    port,
    url,
    admin,
    stop: async () => {
      admin.disconnect();
      child.kill('SIGKILL');
      await exited;
    },
  };
};
