import { createHmac } from 'node:crypto';

/** `BSS-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">` (docs/streams.md, "Verifying"). */
export const signWebhook = (secret: string, body: string, unixSeconds: number): string =>
  `t=${unixSeconds},v1=${createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex')}`;
