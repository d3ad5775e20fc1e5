import { createHash } from 'node:crypto';

/**
 * The only form of a key the database holds. A plain SHA-256 suffices: a key carries ~190 random bits, so
 * neither salting nor a slow hash adds anything, and an unkeyed digest survives rotating server secrets.
 */
export const digestApiKey = (key: string): Buffer => createHash('sha256').update(key, 'utf8').digest();
