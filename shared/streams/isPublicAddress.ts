import { BlockList, isIP } from 'node:net';

// Loopback, private, link-local (the cloud metadata address 169.254.169.254 among them), carrier-grade
// NAT, unspecified and multicast ranges, IPv4 and IPv6 (docs/streams.md, "Webhooks": the SSRF guard).
const REFUSED = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const) {
  REFUSED.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['::ffff:0:0', 96],
  ['64:ff9b::', 96],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['fd00:ec2::254', 128],
] as const) {
  REFUSED.addSubnet(network, prefix, 'ipv6');
}

/** Whether a webhook may connect to this IP address (false for anything that is not an address). */
export const isPublicAddress = (address: string): boolean => {
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 6 && address.toLowerCase().startsWith('::ffff:')) {
    // An IPv4-mapped address is judged as the IPv4 address it maps.
    const mapped = address.slice(7);
    return isIP(mapped) === 4 && !REFUSED.check(mapped, 'ipv4');
  }
  return !REFUSED.check(address, family === 4 ? 'ipv4' : 'ipv6');
};
