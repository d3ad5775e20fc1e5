import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DatabasePool } from 'slonik';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import { buildCaller, type PlanOverrides } from '../helpers/limitFixtures.ts';
import { insertLedgerRow } from '../history/historyFixtures.ts';

export interface FixtureServer {
  readonly url: string;
  readonly close: () => Promise<void>;
}

interface AccountRequest {
  /** A plan of the database (`free`, `pro`, `enterprise`), or limits of a plan of the test's own. */
  readonly plan?: string;
  readonly limits?: PlanOverrides;
  readonly active?: boolean;
}

interface RunsRequest {
  readonly account_id: string;
  readonly count?: number;
  readonly status?: 'queued' | 'completed' | 'failed' | 'timed_out';
  /** How long ago the runs were admitted: runs of the last minute fill the account's rate window. */
  readonly seconds_ago?: number;
}

const readJson = async (request: IncomingMessage): Promise<any> => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) {
    chunks.push(chunk as Buffer);
  }
  return chunks.length === 0 ? {} : JSON.parse(Buffer.concat(chunks).toString('utf8'));
};

type Handler = (pool: DatabasePool, body: any) => Promise<object>;

const createAccount = async (pool: DatabasePool, body: AccountRequest): Promise<object> => {
  if (body.limits !== undefined) {
    const caller = await buildCaller(pool, body.limits);
    return { account_id: caller.accountId, key: caller.key };
  }
  const account = await buildAccount(pool, { plan: body.plan ?? 'pro', is_active: body.active ?? true });
  const key = await buildApiKey(pool, account.id);
  return { account_id: account.id, key: key.key, key_id: key.id };
};

const insertRuns = async (pool: DatabasePool, body: RunsRequest): Promise<object> => {
  const createdAt = body.seconds_ago === undefined ? undefined : new Date(Date.now() - body.seconds_ago * 1000).toISOString();
  const ids: string[] = [];
  for (let index = 0; index < (body.count ?? 1); index += 1) {
    ids.push(await insertLedgerRow(pool, body.account_id, { status: body.status ?? 'completed', ...(createdAt === undefined ? {} : { createdAt }) }));
  }
  return { ids };
};

/**
 * The Python tests' way to the test database: accounts on a given plan with a key, and ledger rows as
 * past runs leave them, made by the same factories the TypeScript tests use (the Python tests cannot
 * reach PostgreSQL themselves). Loopback only; lives as long as the test file.
 */
export const startFixtureServer = async (pool: DatabasePool): Promise<FixtureServer> => {
  const server: Server = createServer((request, response) => {
    const route = `${request.method} ${request.url}`;
    const handle: Handler | undefined = route === 'POST /accounts' ? createAccount : route === 'POST /runs' ? insertRuns : undefined;
    if (handle === undefined) {
      response.writeHead(404).end();
      return;
    }
    readJson(request)
      .then((body) => handle(pool, body))
      .then((result) => response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(result)))
      .catch((error: unknown) => response.writeHead(500, { 'Content-Type': 'text/plain' }).end(String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};
