import { exampleValue } from './exampleValue.ts';

type SchemaObject = Readonly<Record<string, unknown>>;

interface MediaType {
  readonly schema?: SchemaObject;
}

interface OperationObject {
  readonly operationId: string;
  readonly parameters?: ReadonlyArray<{ readonly name: string; readonly in: string; readonly required?: boolean }>;
  readonly requestBody?: { readonly required?: boolean; readonly content?: Readonly<Record<string, MediaType>> };
  readonly security?: ReadonlyArray<Readonly<Record<string, unknown>>>;
  readonly responses: Readonly<Record<string, { readonly headers?: Readonly<Record<string, { readonly description?: string }>>; readonly content?: Readonly<Record<string, MediaType>> }>>;
}

/** What the examples read of the OpenAPI document. */
export interface OpenApiDocument {
  readonly servers?: ReadonlyArray<{ readonly url: string }>;
  readonly paths: Readonly<Record<string, Readonly<Record<string, OperationObject>>>>;
  readonly [key: string]: unknown;
}

const nameOf = (body: unknown): unknown => (body as { name?: unknown } | undefined)?.name;

export interface OperationExamples {
  readonly curl: string;
  readonly typescript: string;
  readonly python: string;
  /** The success answer: its status and, for JSON, an example body built from the response schema. */
  readonly response: { readonly status: number; readonly body?: unknown; readonly text?: string; readonly headers?: Record<string, string> };
}

interface Call {
  readonly method: string;
  readonly path: string;
  /** The path with example parameters and query. */
  readonly url: string;
  readonly body: unknown;
  readonly auth: 'apiKey' | 'sessionCookie' | 'metricsToken' | 'none';
  readonly pathValues: Readonly<Record<string, string>>;
}

const PATH_VALUES: Readonly<Record<string, string>> = {
  preset: 'finance',
  provider: 'github',
  key_id: '5b1c2d3e-4f50-4a61-8b72-93a4b5c6d7e8',
  simulation_id: '3f0c9a52-6b1d-4e8f-9a27-5c4d3e2b1a60',
  name: 'members',
  version: '1',
};
const QUERY_VALUES: Readonly<Record<string, string>> = { limit: '5', state: '<state>', code: '<code>' };

const json = (value: unknown): string => JSON.stringify(value);
const pythonLiteral = (value: unknown): string =>
  value === null ? 'None' : value === true ? 'True' : value === false ? 'False' : typeof value === 'object' ? JSON.stringify(value).replaceAll('null', 'None').replaceAll('true', 'True').replaceAll('false', 'False') : JSON.stringify(value);

const callOf = (document: OpenApiDocument, path: string, method: string, operation: OperationObject): Call => {
  const pathValues: Record<string, string> = {};
  const query: string[] = [];
  for (const parameter of operation.parameters ?? []) {
    if (parameter.in === 'path') {
      pathValues[parameter.name] = PATH_VALUES[parameter.name] ?? 'value';
    } else if (parameter.in === 'query' && (parameter.required === true || parameter.name === 'limit')) {
      query.push(`${parameter.name}=${QUERY_VALUES[parameter.name] ?? 'value'}`);
    }
  }
  const concrete = path.replace(/\{(\w+)\}/g, (_whole, name: string) => pathValues[name] ?? name);
  const schema = operation.requestBody?.content?.['application/json']?.schema;
  // An optional body is left out: the example shows the simplest call.
  const body = schema === undefined || operation.requestBody?.required === false ? undefined : exampleValue(document, schema, { optional: false });
  const schemes = (operation.security ?? []).flatMap((alternative) => Object.keys(alternative));
  const auth = schemes.includes('apiKey') ? 'apiKey' : schemes.includes('metricsToken') ? 'metricsToken' : schemes.includes('sessionCookie') ? 'sessionCookie' : 'none';
  return { method: method.toUpperCase(), path, url: `${concrete}${query.length > 0 ? `?${query.join('&')}` : ''}`, body, auth, pathValues };
};

const curlOf = (base: string, call: Call, redirects: boolean): string => {
  const lines = [`curl -s${redirects ? 'i' : ''}${call.method === 'GET' ? '' : ` -X ${call.method}`} '${base}${call.url}'`];
  if (call.auth === 'apiKey') lines.push(`-H "Authorization: Bearer $BSS_API_KEY"`);
  if (call.auth === 'metricsToken') lines.push(`-H "Authorization: Bearer $METRICS_TOKEN"`);
  if (call.auth === 'sessionCookie') lines.push(`-b "service_session=$SESSION_COOKIE" -H 'Origin: ${base}' -H 'Accept: application/json'`);
  if (call.body !== undefined) lines.push(`-H 'Content-Type: application/json' -d '${json(call.body)}'`);
  return lines.join(' \\\n  ');
};

/** The TypeScript SDK's method for an operation, where it has one (the others are plain fetch calls). */
const SDK_CALLS: Readonly<Record<string, (call: Call) => string>> = {
  listPresets: () => 'await bss.listPresets()',
  getPreset: (call) => `await bss.getPreset(${json(call.pathValues.preset)})`,
  runSimulation: (call) => `await bss.simulate(${json(call.body)})`,
  listSimulations: () => 'await bss.listSimulations({ limit: 5 })',
  getAccount: () => 'await bss.getAccount()',
  getUsage: () => 'await bss.getUsage()',
  listApiKeys: () => 'await bss.listApiKeys()',
  createApiKey: (call) => `await bss.createApiKey(${json(nameOf(call.body))})`,
  rollApiKey: (call) => `await bss.rollApiKey(${json(call.pathValues.key_id)})`,
  revokeApiKey: (call) => `await bss.revokeApiKey(${json(call.pathValues.key_id)})`,
  putModel: (call) => `await bss.models.put(${json(call.pathValues.name)}, ${json(call.body)})`,
  listModels: () => 'await bss.models.list()',
  getModel: (call) => `await bss.models.get(${json(call.pathValues.name)})`,
  getModelVersion: (call) => `await bss.models.get(${json(call.pathValues.name)}, ${Number(call.pathValues.version)})`,
  deleteModel: (call) => `await bss.models.delete(${json(call.pathValues.name)})`,
  validateModel: (call) => `await bss.models.validate(${json(call.body)})`,
};

/** The Python client's method (`import bss`), where it has one (the others use the standard library). */
const PYTHON_CALLS: Readonly<Record<string, (call: Call) => string>> = {
  listPresets: () => 'presets = client.presets()',
  runSimulation: (call) => {
    const { preset, num_interactions: count, ...rest } = call.body as Record<string, unknown>;
    const keywords = Object.entries(rest).map(([name, value]) => `, ${name}=${pythonLiteral(value)}`).join('');
    return `result = client.simulate(${json(preset)}, ${json(count)}${keywords})\ndf = result.to_pandas()`;
  },
  listSimulations: () => 'for run in client.history():\n    print(run)',
  replaySimulation: (call) => `client.download(${json(call.pathValues.simulation_id)}, "run.csv", format="csv")`,
  getUsage: () => 'usage = client.usage()',
  listApiKeys: () => 'keys = client.keys.list()',
  createApiKey: (call) => `created = client.keys.create(${json(nameOf(call.body))})`,
  rollApiKey: (call) => `rolled = client.keys.roll(${json(call.pathValues.key_id)})`,
  revokeApiKey: (call) => `client.keys.revoke(${json(call.pathValues.key_id)})`,
};

const BROWSER_ONLY = new Set(['startSignIn', 'finishSignIn']);

const typescriptOf = (base: string, operationId: string, call: Call): string => {
  if (BROWSER_ONLY.has(operationId)) {
    return operationId === 'startSignIn'
      ? `// In a browser: sign-in is a navigation, not an API call.\nwindow.location.assign(${json(`${base}${call.url}`)});`
      : '// The identity provider sends the browser here after sign-in; no client calls it.';
  }
  const sdk = SDK_CALLS[operationId];
  if (sdk !== undefined) {
    return `import { createBssClient } from './sdk/index.ts';\n\nconst bss = createBssClient({ baseUrl: ${json(base)}, apiKey: process.env.BSS_API_KEY });\nconst answer = ${sdk(call)};`;
  }
  const headers: string[] = [];
  if (call.auth === 'apiKey') headers.push('Authorization: `Bearer ${process.env.BSS_API_KEY}`');
  if (call.auth === 'metricsToken') headers.push('Authorization: `Bearer ${process.env.METRICS_TOKEN}`');
  if (call.auth === 'sessionCookie') headers.push("Accept: 'application/json'");
  const init = [
    call.method === 'GET' ? undefined : `method: '${call.method}'`,
    headers.length > 0 ? `headers: { ${headers.join(', ')} }` : undefined,
    call.auth === 'sessionCookie' ? "credentials: 'same-origin'" : undefined,
  ].filter((part) => part !== undefined);
  const target = call.auth === 'sessionCookie' ? json(call.url) : json(`${base}${call.url}`);
  return `const response = await fetch(${target}${init.length > 0 ? `, { ${init.join(', ')} }` : ''});\nconst answer = await response.${operationTextual(operationId) ? 'text' : 'json'}();`;
};

const operationTextual = (operationId: string): boolean => operationId === 'getMetrics';

const pythonOf = (base: string, operationId: string, call: Call): string => {
  if (BROWSER_ONLY.has(operationId)) {
    return operationId === 'startSignIn'
      ? `# Sign-in happens in a browser:\nimport webbrowser\nwebbrowser.open(${json(`${base}${call.url}`)})`
      : '# The identity provider sends the browser here after sign-in; no client calls it.';
  }
  const client = PYTHON_CALLS[operationId];
  if (client !== undefined) {
    return `import bss\n\nclient = bss.Client(api_url=${json(base)})  # the key from BSS_API_KEY\n${client(call)}`;
  }
  const headers: string[] = [];
  if (call.auth === 'apiKey') headers.push('"Authorization": "Bearer " + os.environ["BSS_API_KEY"]');
  if (call.auth === 'metricsToken') headers.push('"Authorization": "Bearer " + os.environ["METRICS_TOKEN"]');
  if (call.auth === 'sessionCookie') headers.push(`"Cookie": "service_session=" + os.environ["SESSION_COOKIE"], "Origin": ${json(base)}, "Accept": "application/json"`);
  const arguments_ = [json(`${base}${call.url}`), `method=${json(call.method)}`, `headers={${headers.join(', ')}}`];
  const read = operationTextual(operationId) ? 'response.read().decode()' : 'json.load(response)';
  return `import json, os, urllib.request\n\nrequest = urllib.request.Request(${arguments_.join(', ')})\nwith urllib.request.urlopen(request) as response:\n    answer = ${read}`;
};

const responseOf = (document: OpenApiDocument, operation: OperationObject, answer: unknown): OperationExamples['response'] => {
  const [status = '200', response = {}] = Object.entries(operation.responses).find(([code]) => /^[23]/.test(code)) ?? [];
  const content = response.content ?? {};
  const jsonSchema = content['application/json']?.schema;
  const headers = Object.fromEntries(
    Object.entries(response.headers ?? {})
      .filter(([name]) => name === 'Location')
      .map(([name, header]) => [name, header.description ?? '']),
  );
  return {
    status: Number(status),
    ...(jsonSchema !== undefined ? { body: answer ?? exampleValue(document, jsonSchema) } : {}),
    ...(jsonSchema === undefined && Object.keys(content).length > 0 ? { text: `(${Object.keys(content)[0]})` } : {}),
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
  };
};

/**
 * A request and its answer for every operation of the OpenAPI document, in curl, TypeScript (the SDK in
 * sdk/ where it has the call) and Python (the `bss` client where it has the call), built from the
 * document's own schemas, so an example can never describe a field the API does not have. `answers` are
 * real answers by operation id (the preset catalog as the service serves it), shown instead of one built
 * from the schema where a schema alone would only say "string".
 */
export const buildOperationExamples = (document: OpenApiDocument, answers: Readonly<Record<string, unknown>> = {}): Record<string, OperationExamples> => {
  const base = document.servers?.[0]?.url ?? 'http://localhost:3000';
  const examples: Record<string, OperationExamples> = {};
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const call = callOf(document, path, method, operation);
      const redirects = Object.keys(operation.responses).some((status) => status.startsWith('3'));
      examples[operation.operationId] = {
        curl: curlOf(base, call, redirects),
        typescript: typescriptOf(base, operation.operationId, call),
        python: pythonOf(base, operation.operationId, call),
        response: responseOf(document, operation, answers[operation.operationId]),
      };
    }
  }
  return examples;
};
