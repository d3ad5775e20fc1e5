import net from 'node:net';

export interface TcpProxy {
  readonly port: number;
  /** Sends new connections to another port from now on (open ones keep theirs). */
  readonly forwardTo: (targetPort: number) => void;
  /** Simulates an outage: open connections are reset and new ones refused. */
  readonly cut: () => Promise<void>;
  /** Simulates a broken link: open connections are reset, new ones still made. */
  readonly resetOpen: () => void;
  readonly close: () => Promise<void>;
}

/**
 * A loopback TCP proxy to a real service, so a test can take that service away from one app only. Its port
 * exists before the target does if need be: start it with target 0 and name the target with `forwardTo`.
 */
export const startTcpProxy = async (targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> => {
  let target = targetPort;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target, targetHost);
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
  let closed = false;
  const close = async (): Promise<void> => {
    for (const socket of sockets) {
      socket.resetAndDestroy();
    }
    if (!closed) {
      closed = true;
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  };
  const forwardTo = (next: number): void => {
    target = next;
  };
  const resetOpen = (): void => {
    for (const socket of sockets) {
      socket.resetAndDestroy();
    }
  };
  return { port, forwardTo, cut: close, resetOpen, close };
};
