import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { resolveWebhookAddress } from '../../shared/streams/resolveWebhookAddress.ts';
import { signWebhook } from './signWebhook.ts';

/** No answer within this long is a failed try (docs/streams.md#webhooks). */
const ANSWER_TIMEOUT_MS = 10_000;

/** A try's outcome: acknowledged (2xx), or why not, in words a client may read (no secret, no body). */
export type WebhookTry = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/**
 * One try of one batch: the URL's host resolved and checked now, then the connection made to that very
 * address (a `lookup` that answers with it), so a DNS answer that changes between the check and the
 * connection cannot lead to a refused address (docs/development.md#code-conventions). Host and TLS name stay the URL's.
 */
export const postWebhook = async (input: { url: string; body: string; secret: string; idempotencyKey: string; allowPrivate: boolean }): Promise<WebhookTry> => {
  const url = new URL(input.url);
  const target = await resolveWebhookAddress(url, input.allowPrivate).catch(() => undefined);
  if (target === undefined) return { ok: false, reason: 'The webhook URL does not resolve to an address deliveries may reach.' };
  const lookup: LookupFunction = (_hostname, options, callback) => {
    if (options.all === true) (callback as unknown as (error: null, addresses: { address: string; family: number }[]) => void)(null, [target]);
    else callback(null, target.address, target.family);
  };
  const body = Buffer.from(input.body, 'utf8');
  const headers = {
    'Content-Type': 'application/json',
    'Content-Length': String(body.length),
    'BSS-Signature': signWebhook(input.secret, input.body, Math.floor(Date.now() / 1000)),
    'Idempotency-Key': input.idempotencyKey,
    'User-Agent': 'behavioral-simulation-service-webhooks',
  };
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise<WebhookTry>((resolve) => {
    const request = transport.request(url, { method: 'POST', headers, lookup, agent: false, timeout: ANSWER_TIMEOUT_MS }, (response) => {
      response.resume();
      const status = response.statusCode ?? 0;
      resolve(status >= 200 && status < 300 ? { ok: true } : { ok: false, reason: `The webhook answered HTTP ${status}.` });
    });
    request.setTimeout(ANSWER_TIMEOUT_MS, () => request.destroy(new Error('timeout')));
    request.on('error', (error) =>
      resolve({ ok: false, reason: error.message === 'timeout' ? 'The webhook did not answer within 10 s.' : 'The webhook could not be reached.' }),
    );
    request.end(body);
  });
};
