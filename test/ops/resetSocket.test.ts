import { once } from 'node:events';
import net from 'node:net';
import test from 'ava';
import { resetSocket } from '../helpers/resetSocket.ts';

// test/helpers/resetSocket.ts (docs/development.md#a-test-process-that-never-exits): a link broken by a
// test must end its socket either way, or the test process can never exit.

/** A connected pair: the server's side of it, and the client. */
const connectedPair = async (): Promise<{ accepted: net.Socket; client: net.Socket; close: () => void }> => {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as net.AddressInfo;
  const client = net.connect(port, '127.0.0.1');
  const [accepted] = (await once(server, 'connection')) as [net.Socket];
  return { accepted, client, close: () => server.close() };
};

test('a socket that is open is reset: its peer sees ECONNRESET, and it closes', async (t) => {
  const { accepted, client, close } = await connectedPair();
  t.teardown(close);
  const failed = once(client, 'error');
  resetSocket(accepted);
  await once(accepted, 'close');
  const [error] = (await failed) as [NodeJS.ErrnoException];
  t.is(error.code, 'ECONNRESET');
  t.true(accepted.destroyed);
});

test('a socket whose shutdown is under way (its peer sent FIN, it ended in turn) still closes: no handle is left to hold the process', async (t) => {
  const { accepted, client, close } = await connectedPair();
  t.teardown(close);
  client.on('error', () => {});
  client.end();
  await once(accepted, 'end');
  // The shutdown Node starts itself after the peer's FIN, made certain here.
  accepted.end();
  // resetAndDestroy() alone fails here with EINVAL and never emits 'close'.
  const outcome = new Promise<string>((resolve) => {
    accepted.once('close', () => resolve('closed'));
    accepted.once('error', (error: NodeJS.ErrnoException) => resolve(`error ${String(error.code)}`));
  });
  resetSocket(accepted);
  t.is(await outcome, 'closed');
  t.true(accepted.destroyed);
});
