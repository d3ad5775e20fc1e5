import { readFile } from 'node:fs/promises';
import { isIPv4 } from 'node:net';
import type { Socket } from 'node:net';

// Linux's tables of TCP sockets; IPv4 connections accepted on an IPv6 listener are in tcp6.
const TABLES = ['/proc/net/tcp6', '/proc/net/tcp'];
const ESTABLISHED = '01';

const hexPort = (port: number): string => port.toString(16).toUpperCase().padStart(4, '0');

/** An IPv4 address as the tables print it: its four bytes as one little-endian word. */
const hexIPv4 = (address: string): string =>
  address
    .split('.')
    .reverse()
    .map((part) => Number(part).toString(16).toUpperCase().padStart(2, '0'))
    .join('');

/**
 * The bytes the kernel still holds for a connection's peer, sent but not yet acknowledged or not yet sent
 * (the `tx_queue` of /proc/net/tcp): what a client has really taken is what the socket handed to the
 * kernel minus this. Undefined where the tables do not exist (not Linux) or hold no such connection.
 */
export const readSendQueue = async (socket: Socket): Promise<number | undefined> => {
  const { localPort, remotePort, remoteAddress } = socket;
  if (localPort === undefined || remotePort === undefined || remoteAddress === undefined) {
    return undefined;
  }
  const local = `:${hexPort(localPort)}`;
  const v4 = remoteAddress.startsWith('::ffff:') ? remoteAddress.slice('::ffff:'.length) : remoteAddress;
  // The peer's address too where it is IPv4 (another host may use the same port); its port alone otherwise.
  const remote = isIPv4(v4) ? `${hexIPv4(v4)}:${hexPort(remotePort)}` : `:${hexPort(remotePort)}`;
  for (const table of TABLES) {
    let text: string;
    try {
      text = await readFile(table, 'latin1');
    } catch {
      continue;
    }
    for (const line of text.split('\n')) {
      const [, localAddress, remoteField, state, queues] = line.trim().split(/\s+/);
      if (state === ESTABLISHED && localAddress?.endsWith(local) === true && remoteField?.endsWith(remote) === true) {
        const held = Number.parseInt(queues?.split(':')[0] ?? '', 16);
        return Number.isSafeInteger(held) ? held : undefined;
      }
    }
  }
  return undefined;
};
