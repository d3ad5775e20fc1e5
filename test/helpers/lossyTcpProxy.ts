import net from 'node:net';

// PostgreSQL's ReadyForQuery message: the server has finished (and committed) what the client sent.
const READY_FOR_QUERY = Buffer.from([0x5a, 0, 0, 0, 5]);

export interface LossyTcpProxy {
  readonly port: number;
  /**
   * Arms the proxy: the next time a client sends bytes containing `marker`, they reach the server, but the
   * server's whole answer is swallowed and the link cut once the server is done (ReadyForQuery): the
   * statement ran and committed, and its acknowledgement is lost. Resolves when that has happened.
   */
  readonly loseReplyTo: (marker: string) => Promise<void>;
  readonly close: () => Promise<void>;
}

/** A loopback TCP proxy to PostgreSQL that can lose exactly one reply, for lost-acknowledgement tests. */
export const startLossyTcpProxy = async (targetPort: number): Promise<LossyTcpProxy> => {
  let armed: { marker: Buffer; done: () => void } | undefined;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, '127.0.0.1');
    sockets.add(client).add(upstream);
    let losing: (() => void) | undefined;
    let swallowed = Buffer.alloc(0);
    client.on('data', (chunk: Buffer) => {
      if (armed !== undefined && chunk.includes(armed.marker)) {
        losing = armed.done;
        armed = undefined;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (losing === undefined) {
        client.write(chunk);
        return;
      }
      swallowed = Buffer.concat([swallowed, chunk]);
      if (swallowed.includes(READY_FOR_QUERY)) {
        client.resetAndDestroy();
        upstream.destroy();
        losing();
      }
    });
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
    port,
    loseReplyTo: (marker) =>
      new Promise<void>((resolve) => {
        armed = { marker: Buffer.from(marker, 'utf8'), done: resolve };
      }),
    close: async () => {
      for (const socket of sockets) {
        socket.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
