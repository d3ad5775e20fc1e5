import { hash } from 'node:crypto';

/**
 * The only form of a key the database holds. A plain SHA-256 suffices: a key carries ~190 random bits, so
 * neither salting nor a slow hash adds anything, and an unkeyed digest survives rotating server secrets.
 * One-shot `crypto.hash`: it runs on every simulation request (the principal cache's key) and skips the
 * Hash object that createHash builds.
 */
export const digestApiKey = (key: string): Buffer => hash('sha256', key, 'buffer');
