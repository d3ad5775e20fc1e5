import { type CookieCipher, createCookieCipher } from '../auth/cookieCipher.ts';

/** The purpose the secret is sealed under: its own key, bound as associated data, so no cookie opens as one. */
const WEBHOOK_SECRET_PURPOSE = 'stream-webhook-secret';

/**
 * Seals a webhook stream's secret into its row (the API, at creation) and opens it for signing (the
 * worker, at each delivery), under a key derived from SESSION_SECRET (docs/streams.md, "Webhooks"): one
 * definition both processes import, so neither reaches into the other's folder.
 */
export const webhookSecretCipher = (sessionSecret: string): CookieCipher => createCookieCipher(sessionSecret, WEBHOOK_SECRET_PURPOSE);
