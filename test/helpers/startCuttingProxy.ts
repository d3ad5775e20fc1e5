import net from 'node:net';

export interface CuttingProxy {
  readonly url: string;
  /** How many answers it has cut so far. */
  readonly cuts: () => number;
  readonly close: () => Promise<void>;
}

/**
 * A loopback proxy to a service that resets the connection once `afterBytes` of an answer to a request
 * matching `pathPattern` went through, for the first `maxCuts` such requests; everything else passes
 * whole. A network failure mid-download, made to order for resume tests.
 */
export const startCuttingProxy = async (targetUrl: string, options: { readonly afterBytes: number; readonly maxCuts: number; readonly pathPattern: RegExp }): Promise<CuttingProxy> => {
  const target = new URL(targetUrl);
  let cuts = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    let armed = false;
    let forwarded = 0;
    client.on('data', (chunk: Buffer) => {
      const requestLine = chunk.toString('latin1').split('\r\n', 1)[0] ?? '';
      const path = requestLine.split(' ')[1];
      if (!armed && path !== undefined && /^[A-Z]+ \S+ HTTP\/1\.1$/.test(requestLine) && options.pathPattern.test(path) && cuts < options.maxCuts) {
        armed = true;
        forwarded = 0;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (armed && forwarded + chunk.length > options.afterBytes) {
        cuts += 1;
        client.write(chunk.subarray(0, options.afterBytes - forwarded), () => {
          client.resetAndDestroy();
          upstream.destroy();
        });
        armed = false;
        return;
      }
      forwarded += chunk.length;
      client.write(chunk);
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
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    cuts: () => cuts,
    close: async () => {
      for (const socket of sockets) {
        socket.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
