import { randomInt } from 'node:crypto';

/** A seed for a request that gave none, over the whole documented range 0..4294967295. */
export const drawSeed = (): number => randomInt(0, 2 ** 32);
