import { ENGINE_VERSION, generateRecords } from '../../../shared/engine/index.ts';
import { API_VERSION } from '../../../shared/version.ts';

type JsonSchema = Readonly<Record<string, unknown>>;

const UUID = '3f0c9a52-6b1d-4e8f-9a27-5c4d3e2b1a60';
const TIMESTAMP = '2026-11-23T10:15:30.123Z';

/**
 * Values of fields by name, where a schema alone would say only "string" or "integer": what a reader
 * would really send or see. Everything else is derived from the schema (enum, const, format, bounds).
 */
const FIELD_VALUES: Readonly<Record<string, unknown>> = {
  preset: 'finance',
  profile: 'balanced_investor',
  num_interactions: 1000,
  seed: 42,
  name: 'laptop',
  email: 'ada@example.com',
  display_name: 'Ada Lovelace',
  plan: 'pro',
  key: 'bs_live_2Qe0yVbW8kTn5rHc1xJ4mZp7LsA9dGfU',
  key_prefix: 'bs_live_2Qe0',
  service_version: ENGINE_VERSION,
  api_version: API_VERSION,
  version: API_VERSION,
  compute_ms: 3,
  next_cursor: null,
  // Engine 3's scenario echo: most runs have none (a request example shows only what it needs).
  scenario: null,
  // A preset run's result and Run name no model.
  model: null,
  // Engine 4's clock inputs, as a run without them echoes them.
  start_time: '2026-01-01T00:00:00.000Z',
  order: 'sequence',
  population: 100,
  label: 'GitHub',
  url: '/v1/auth/github',
  local_sign_in: null,
  authentication_methods: ['github'],
  // A run in the history as most are: finished.
  status: 'completed',
  // The month of the usage examples (the period of GET /v1/usage).
  start: '2026-11-01T00:00:00.000Z',
  end: '2026-12-01T00:00:00.000Z',
  // Real records of the engine, so the example shows what a run holds.
  data: generateRecords({ preset: 'finance', profile: 'balanced_investor', seed: 42, numInteractions: 2 }),
};

const resolve = (document: JsonSchema, schema: JsonSchema): JsonSchema => {
  const ref = schema.$ref;
  if (typeof ref !== 'string') {
    return schema;
  }
  const target = ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], document);
  return resolve(document, (target ?? {}) as JsonSchema);
};

const stringValue = (schema: JsonSchema): string => {
  switch (schema.format) {
    case 'uuid':
      return UUID;
    case 'date-time':
      return TIMESTAMP;
    case 'date':
      return TIMESTAMP.slice(0, 10);
    case 'email':
      return 'ada@example.com';
    case 'uri':
      return 'https://bss.example.com/v1/downloads/Q3JxbWQ4ZzV2a2l0bnE2d3h5ejEyMzQ1Njc4OWFiY2Q';
    default:
      break;
  }
  const pattern = typeof schema.pattern === 'string' ? schema.pattern : '';
  if (pattern.includes('\\d+\\.\\d+\\.\\d+')) {
    return API_VERSION;
  }
  return 'string';
};

const fits = (document: JsonSchema, schema: JsonSchema, value: unknown): boolean => {
  if (schema.const !== undefined) {
    return schema.const === value;
  }
  if (Array.isArray(schema.enum)) {
    return schema.enum.includes(value);
  }
  if (Array.isArray(value)) {
    const items = schema.items === undefined ? undefined : resolve(document, schema.items as JsonSchema);
    return schema.type === 'array' && items !== undefined && items.properties === undefined;
  }
  // An absolute URL only where the schema asks for one (a sign-in path is not a download link).
  if (schema.format === 'uri' && !(typeof value === 'string' && /^https?:\/\//.test(value))) {
    return false;
  }
  // A primitive fits a schema of a primitive type, or one that says nothing of its type.
  return schema.type !== 'object' && schema.type !== 'array';
};

/**
 * An example value of a JSON Schema (draft 2020-12, as the OpenAPI document holds them): the field's known
 * value, else its const, enum, default or example, else one built from its type. Optional object fields
 * are included only when `optional` says so (a request shows what it needs; a response shows everything).
 */
export const exampleValue = (document: JsonSchema, given: JsonSchema, options: { optional: boolean; name?: string } = { optional: true }): unknown => {
  const schema = resolve(document, given);
  // A field's known value, where the schema takes it: not against an enum of its own, and records only
  // where the items are free-form (the records of a run), not where they are objects of a known shape.
  if (options.name !== undefined && Object.hasOwn(FIELD_VALUES, options.name) && fits(document, schema, FIELD_VALUES[options.name])) {
    return FIELD_VALUES[options.name];
  }
  if (schema.const !== undefined) {
    return schema.const;
  }
  if (Array.isArray(schema.enum)) {
    return schema.enum[0];
  }
  if (schema.default !== undefined) {
    return schema.default;
  }
  if (Array.isArray(schema.examples) && schema.examples.length > 0) {
    return schema.examples[0];
  }
  const alternatives = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(alternatives)) {
    const [first] = alternatives.filter((alternative) => alternative.type !== 'null');
    return first === undefined ? null : exampleValue(document, first, { optional: options.optional });
  }
  const type = Array.isArray(schema.type) ? (schema.type as string[]).find((each) => each !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
      // `name` names different things: a plan's is a real plan, a key's is a label someone would give it.
      const nameValue = Object.hasOwn(properties, 'requests_per_minute') ? 'pro' : undefined;
      const required = new Set((schema.required ?? []) as string[]);
      return Object.fromEntries(
        Object.entries(properties)
          // A simulation request names `preset` or `model`, neither required alone: the example runs a preset.
          .filter(([name]) => options.optional || required.has(name) || ((name === 'seed' || name === 'preset') && Object.hasOwn(FIELD_VALUES, name)))
          .map(([name, property]) => [name, name === 'name' && nameValue !== undefined ? nameValue : exampleValue(document, property, { optional: options.optional, name })]),
      );
    }
    case 'array':
      return schema.items === undefined ? [] : [exampleValue(document, schema.items as JsonSchema, { optional: options.optional })];
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' && schema.minimum > 0 ? schema.minimum : type === 'integer' ? 1 : 0.5;
    case 'boolean':
      return true;
    case 'string':
      return stringValue(schema);
    default:
      return null;
  }
};
