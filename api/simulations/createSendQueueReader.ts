import { readFile } from 'node:fs/promises';
import { isIPv4 } from 'node:net';
import type { Socket } from 'node:net';

// Linux's tables of TCP sockets; IPv4 connections accepted on an IPv6 listener are in tcp6.
const TABLES = ['/proc/net/tcp6', '/proc/net/tcp'];
const ESTABLISHED = '01';
/** How long one reading of the tables serves every stream that asks: they are read once per check, not per stream. */
const FRESH_MS = 200;

const hexPort = (port: number): string => port.toString(16).toUpperCase().padStart(4, '0');

/** An IPv4 address as the tables print it: its four bytes as one little-endian word. */
const hexIPv4 = (address: string): string =>
  address
    .split('.')
    .reverse()
    .map((part) => Number(part).toString(16).toUpperCase().padStart(2, '0'))
    .join('');

/** Established connections' send queues, by local port and remote `address:port` as the tables print them. */
type SendQueues = ReadonlyMap<string, number>;

const readTables = async (): Promise<SendQueues> => {
  const queues = new Map<string, number>();
  for (const table of TABLES) {
    let text: string;
    try {
      text = await readFile(table, 'latin1');
    } catch {
      continue;
    }
    for (const line of text.split('\n')) {
      const [, local, remote, state, sizes] = line.trim().split(/\s+/);
      if (state !== ESTABLISHED || local === undefined || remote === undefined) {
        continue;
      }
      const held = Number.parseInt(sizes?.split(':')[0] ?? '', 16);
      if (Number.isSafeInteger(held)) {
        queues.set(`${local.slice(local.indexOf(':') + 1)} ${remote}`, held);
      }
    }
  }
  return queues;
};

export interface SendQueueReader {
  /**
   * The bytes the kernel still holds for a connection's peer, sent but not yet acknowledged or not yet
   * sent (the `tx_queue` of /proc/net/tcp): what a client has really taken is what the socket handed to
   * the kernel minus this. Undefined where the tables do not exist (not Linux) or hold no such connection.
   */
  readonly read: (socket: Socket) => Promise<number | undefined>;
}

export const createSendQueueReader = (): SendQueueReader => {
  let last: { readonly at: number; readonly queues: Promise<SendQueues> } | undefined;
  const current = (): Promise<SendQueues> => {
    if (last === undefined || Date.now() - last.at > FRESH_MS) {
      last = { at: Date.now(), queues: readTables() };
    }
    return last.queues;
  };
  return {
    read: async (socket) => {
      const { localPort, remotePort, remoteAddress } = socket;
      if (localPort === undefined || remotePort === undefined || remoteAddress === undefined) {
        return undefined;
      }
      const v4 = remoteAddress.startsWith('::ffff:') ? remoteAddress.slice('::ffff:'.length) : remoteAddress;
      const queues = await current();
      const port = `${hexPort(localPort)} `;
      if (isIPv4(v4)) {
        // tcp prints the peer as 0100007F:…, tcp6 as the IPv4-mapped address ::ffff:127.0.0.1.
        const peer = `${hexIPv4(v4)}:${hexPort(remotePort)}`;
        return queues.get(`${port}${peer}`) ?? queues.get(`${port}0000000000000000FFFF0000${peer}`);
      }
      // An IPv6 peer: its port alone (its address is printed word by word; a port pair is unique enough here).
      const peerPort = `:${hexPort(remotePort)}`;
      for (const [key, held] of queues) {
        if (key.startsWith(port) && key.endsWith(peerPort)) {
          return held;
        }
      }
      return undefined;
    },
  };
};
