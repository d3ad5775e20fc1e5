import net from 'node:net';

// PostgreSQL's ReadyForQuery message: the server has finished (and, outside a transaction block or after
// COMMIT, committed) what the client sent.
const READY_FOR_QUERY = Buffer.from([0x5a, 0, 0, 0, 5]);

export interface CommitHoldingProxy {
  readonly port: number;
  /**
   * Arms the proxy: once one connection has sent bytes containing each of `markers` in turn (the statement,
   * then its COMMIT, say), the server's answer to the last of them is held back from the client until
   * `meanwhile` resolves, then delivered whole. The server has committed by then; its client does not know
   * it yet, so `meanwhile` runs exactly between a change's commit and whatever its process does next.
   * Resolves once the answer was delivered.
   */
  readonly holdCommit: (markers: readonly string[], meanwhile: () => Promise<void>) => Promise<void>;
  readonly close: () => Promise<void>;
}

/** A loopback TCP proxy to PostgreSQL that can hold back the answer to a chosen commit. */
export const startCommitHoldingProxy = async (targetPort: number): Promise<CommitHoldingProxy> => {
  let armed: { markers: readonly Buffer[]; meanwhile: () => Promise<void>; delivered: () => void; failed: (error: unknown) => void } | undefined;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, '127.0.0.1');
    sockets.add(client).add(upstream);
    // This connection's progress through the armed markers, and the answer being held.
    let matched = 0;
    let holding: { bytes: Buffer; release?: Promise<void> } | undefined;
    client.on('data', (chunk: Buffer) => {
      const wanted = armed?.markers[matched];
      if (armed !== undefined && wanted !== undefined && chunk.includes(wanted)) {
        matched += 1;
        if (matched === armed.markers.length) {
          holding = { bytes: Buffer.alloc(0) };
        }
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (holding === undefined) {
        client.write(chunk);
        return;
      }
      holding.bytes = Buffer.concat([holding.bytes, chunk]);
      if (holding.release !== undefined || !holding.bytes.includes(READY_FOR_QUERY) || armed === undefined) {
        return;
      }
      const { meanwhile, delivered, failed } = armed;
      armed = undefined;
      const held = holding;
      held.release = meanwhile().then(
        () => {
          holding = undefined;
          client.write(held.bytes, () => delivered());
        },
        (error: unknown) => {
          holding = undefined;
          client.write(held.bytes);
          failed(error);
        },
      );
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
    holdCommit: (markers, meanwhile) =>
      new Promise<void>((delivered, failed) => {
        armed = { markers: markers.map((marker) => Buffer.from(marker)), meanwhile, delivered, failed };
      }),
    close: async () => {
      for (const socket of sockets) {
        socket.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
