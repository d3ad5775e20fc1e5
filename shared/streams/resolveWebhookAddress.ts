import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isPublicAddress } from './isPublicAddress.ts';

/**
 * The one address a webhook delivery connects to: the URL's host resolved once, and refused (undefined)
 * when any answer is loopback, private, link-local or metadata and private addresses are not allowed.
 * The caller connects to this address itself (its Host header and TLS name stay the URL's), so a DNS
 * answer that changes between this check and the connection cannot lead elsewhere (docs/development.md#code-conventions).
 */
export const resolveWebhookAddress = async (url: URL, allowPrivate: boolean): Promise<{ address: string; family: number } | undefined> => {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const answers = isIP(host) === 0 ? await lookup(host, { all: true, verbatim: true }) : [{ address: host, family: isIP(host) }];
  if (answers.length === 0) return undefined;
  if (!allowPrivate && answers.some((answer) => !isPublicAddress(answer.address))) return undefined;
  return answers[0];
};
