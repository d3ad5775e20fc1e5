import http from 'node:http';
import { freePort } from '../helpers/freePort.ts';
import { type ServiceProcess, spawnService } from '../helpers/spawnService.ts';


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
