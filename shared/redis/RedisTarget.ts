import { redactUrl } from '../db/redactUrl.ts';

export interface RedisNode {
  readonly host: string;
  readonly port: number;
}

/** Where the service's Redis is: one server by URL, or a Redis Cluster by some of its nodes (seeds). */
export type RedisTarget =
  | { readonly kind: 'single'; readonly url: string }
  | { readonly kind: 'cluster'; readonly nodes: readonly RedisNode[] };

/** A target fit for a message: a URL's password is never shown. */
export const describeRedisTarget = (target: RedisTarget): string =>
  target.kind === 'single' ? redactUrl(target.url) : `the Redis Cluster at ${target.nodes.map(({ host, port }) => `${host}:${port}`).join(',')}`;
