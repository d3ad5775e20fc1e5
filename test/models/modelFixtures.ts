import { readFileSync } from 'node:fs';
import type { TestApp } from '../helpers/startTestApp.ts';

export interface ApiAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly bytes: Buffer;
  // Tests read fields freely; the contract's shape is what they assert.
  readonly body: any;
}

/** Any request over real HTTP with an API key; a body that is not a string is sent as JSON. */
export const call = async (
  app: TestApp,
  method: string,
  path: string,
  key: string | undefined,
  options: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<ApiAnswer> => {
  const headers: Record<string, string> = { ...options.headers };
  if (key !== undefined) headers.Authorization = `Bearer ${key}`;
  if (options.body !== undefined) headers['Content-Type'] ??= 'application/json';
  const response = await fetch(`${app.url}${path}`, {
    method,
    headers,
    ...(options.body === undefined ? {} : { body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body) }),
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  const text = bytes.toString('utf8');
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, text, bytes, body };
};

/**
 * A small model: a subscriber who is active, lapses or leaves, with a balance carried from step to step and
 * one scenario event. Every member of the definition that tests change is at the top level.
 */
export const tinyModel = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  description: 'A member who is active, lapses and comes back, or leaves for good.',
  states: ['Active', 'Lapsed', 'Gone'],
  initial: 'Active',
  terminal: ['Gone'],
  max_steps: 40,
  profiles: { steady: { lapse: 0.1, back: 0.5, leave: 0.02 }, shaky: { lapse: 0.3, back: 0.3, leave: 0.08 } },
  variables: [{ name: 'carried', initial: 100, next: "state == 'Active' ? carried + uniform(0, 10) : carried - 5" }],
  transitions: { Active: { Lapsed: 'lapse', Gone: 'leave' }, Lapsed: { Active: 'back', Gone: 'leave * 2' } },
  fields: [
    { name: 'balance', type: 'number', value: 'carried', decimals: 2, description: 'Carried balance.' },
    { name: 'visits', type: 'integer', value: "state == 'Active' ? poisson(3) : 0" },
    { name: 'channel', type: 'string', value: "choice(['web', 'app'], [0.7, 0.3])" },
  ],
  events: [{ type: 'outage', description: 'The service is down.', effect: 'Members lapse far more often.', set: { lapse: 'min(1, lapse + 0.6 * intensity)' } }],
  ...overrides,
});

/** The gallery's models (docs/models/*.json) by name, as their files hold them. */
export const GALLERY = ['saas_subscription', 'card_payments', 'iot_sensor_fleet', 'checkout_funnel'] as const;

export const galleryModel = (name: (typeof GALLERY)[number]): Record<string, unknown> =>
  JSON.parse(readFileSync(new URL(`../../docs/models/${name}.json`, import.meta.url), 'utf8')) as Record<string, unknown>;
