// Renders /openapi.json as a reference page. Built with createElement and textContent only: the page's
// Content-Security-Policy forbids inline code and string-to-HTML sinks.

const h = (tag, attributes = {}, ...children) => {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name === 'class') element.className = value;
    else element.setAttribute(name, value);
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    element.append(typeof child === 'string' ? document.createTextNode(child) : child);
  }
  return element;
};

// Backticks in descriptions mark code, as in Markdown; nothing else of Markdown is needed here.
const prose = (text = '') => text.split(/(`[^`]*`)/).map((part) => (part.startsWith('`') && part.endsWith('`') && part.length > 1 ? h('code', {}, part.slice(1, -1)) : part));

const resolve = (document_, ref) => ref.replace(/^#\//, '').split('/').reduce((node, key) => node?.[key.replaceAll('~1', '/').replaceAll('~0', '~')], document_);

const constraints = (schema) => {
  const parts = [];
  if (schema.format) parts.push(schema.format);
  if (schema.enum) parts.push(`one of ${schema.enum.map((value) => JSON.stringify(value)).join(', ')}`);
  if (schema.const !== undefined) parts.push(`= ${JSON.stringify(schema.const)}`);
  if (schema.minimum !== undefined && schema.minimum > Number.MIN_SAFE_INTEGER) parts.push(`≥ ${schema.minimum}`);
  if (schema.maximum !== undefined && schema.maximum < Number.MAX_SAFE_INTEGER) parts.push(`≤ ${schema.maximum}`);
  if (schema.minLength !== undefined) parts.push(`min length ${schema.minLength}`);
  if (schema.maxLength !== undefined) parts.push(`max length ${schema.maxLength}`);
  if (schema.pattern && !schema.format) parts.push(`pattern ${schema.pattern}`);
  return parts;
};

const typeName = (schema) => {
  if (schema.$ref) return schema.$ref.split('/').pop();
  if (schema.anyOf || schema.oneOf) return (schema.anyOf ?? schema.oneOf).map(typeName).join(' | ');
  if (schema.type === 'array') return `array of ${schema.items ? typeName(schema.items) : 'any'}`;
  if (schema.type === 'object' && schema.additionalProperties && typeof schema.additionalProperties === 'object' && !schema.properties) {
    return `map of ${typeName(schema.additionalProperties)}`;
  }
  if (schema.const !== undefined) return typeof schema.const;
  return Array.isArray(schema.type) ? schema.type.join(' | ') : schema.type ?? 'any';
};

const renderSchema = (document_, schema, depth = 0) => {
  if (!schema || depth > 6) return h('span', { class: 'muted' }, '…');
  if (schema.$ref) return renderSchema(document_, resolve(document_, schema.$ref), depth + 1);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) {
    const objects = alternatives.filter((alternative) => alternative.type !== 'null');
    if (objects.length === 1) return renderSchema(document_, objects[0], depth + 1);
  }
  if (schema.type === 'array' && schema.items) return renderSchema(document_, schema.items, depth + 1);
  if (schema.type === 'object' && schema.additionalProperties && typeof schema.additionalProperties === 'object' && !schema.properties) {
    return renderSchema(document_, schema.additionalProperties, depth + 1);
  }
  if (!schema.properties) return h('span');
  const required = new Set(schema.required ?? []);
  return h(
    'ul',
    {},
    Object.entries(schema.properties).map(([name, property]) => {
      const target = property.$ref ? resolve(document_, property.$ref) : property;
      const nested = target && (target.properties || target.items?.properties || target.items?.$ref || target.anyOf || target.additionalProperties?.type);
      return h(
        'li',
        {},
        h('strong', {}, name),
        ' ',
        h('span', { class: 'muted' }, typeName(property)),
        required.has(name) ? h('span', { class: 'required' }, ' required') : null,
        ...constraints(target ?? {}).map((text) => h('span', { class: 'muted' }, ` · ${text}`)),
        property.description || target?.description ? h('div', {}, prose(property.description ?? target.description)) : null,
        nested ? renderSchema(document_, property, depth + 1) : null,
      );
    }),
  );
};

const schemaBlock = (document_, schema) =>
  h('div', { class: 'schema' }, h('div', { class: 'muted' }, typeName(schema)), renderSchema(document_, schema));

const LANGUAGES = [
  ['curl', 'curl'],
  ['typescript', 'TypeScript'],
  ['python', 'Python'],
];

// A request in each client, then the answer, from /docs/examples.json (built from this same document).
const renderExamples = (example) => {
  if (!example) return null;
  const { response } = example;
  const answer = response.body !== undefined ? JSON.stringify(response.body, null, 2) : (response.text ?? '');
  const headers = Object.entries(response.headers ?? {}).map(([name, value]) => `${name}: ${value}`);
  return h(
    'div',
    { class: 'examples' },
    h('h4', {}, 'Example'),
    LANGUAGES.map(([key, label], index) =>
      h('details', { class: `example example-${key}`, ...(index === 0 ? { open: '' } : {}) }, h('summary', {}, label), h('pre', {}, h('code', {}, example[key]))),
    ),
    h('div', { class: 'example-response' }, h('span', { class: 'muted' }, `Response ${response.status}`), headers.length > 0 || answer !== '' ? h('pre', {}, h('code', {}, [...headers, answer].filter(Boolean).join('\n'))) : null),
  );
};

const renderOperation = (document_, path, method, operation, example) => {
  const id = operation.operationId;
  const security = (operation.security ?? []).map((alternative) => Object.keys(alternative).join(' + ') || 'none');
  const parameters = operation.parameters ?? [];
  const body = operation.requestBody?.content?.['application/json']?.schema;
  return h(
    'section',
    { class: 'operation', id },
    h('div', { class: 'signature' }, h('span', { class: `method ${method}` }, method), h('span', {}, path), h('span', { class: 'muted' }, operation.summary ?? '')),
    operation.description ? h('p', {}, prose(operation.description)) : null,
    security.length > 0 ? h('p', {}, h('span', { class: 'muted' }, 'Authentication: '), security.join(' or ')) : h('p', { class: 'muted' }, 'Public.'),
    parameters.length > 0
      ? h(
          'table',
          {},
          h('tr', {}, h('th', {}, 'Parameter'), h('th', {}, 'In'), h('th', {}, 'Type'), h('th', {}, 'Description')),
          parameters.map((parameter) =>
            h(
              'tr',
              {},
              h('td', {}, h('code', {}, parameter.name), parameter.required ? h('span', { class: 'required' }, ' required') : null),
              h('td', {}, parameter.in),
              h('td', {}, typeName(parameter.schema), ...constraints(parameter.schema).map((text) => ` · ${text}`)),
              h('td', {}, prose(parameter.description)),
            ),
          ),
        )
      : null,
    body ? h('div', {}, h('h4', {}, 'Request body (application/json)'), schemaBlock(document_, body)) : null,
    renderExamples(example),
    h('h4', {}, 'Responses'),
    h(
      'table',
      {},
      h('tr', {}, h('th', {}, 'Status'), h('th', {}, 'Description'), h('th', {}, 'Body')),
      Object.entries(operation.responses).map(([status, response]) => {
        const [mediaType, content] = Object.entries(response.content ?? {})[0] ?? [];
        const headers = Object.keys(response.headers ?? {}).filter((name) => name !== 'X-Request-ID');
        return h(
          'tr',
          {},
          h('td', { class: 'status' }, status),
          h('td', {}, prose(response.description), headers.length > 0 ? h('div', { class: 'muted' }, `Headers: ${headers.join(', ')}`) : null),
          h(
            'td',
            {},
            content?.schema?.$ref ? h('details', {}, h('summary', {}, typeName(content.schema)), schemaBlock(document_, content.schema)) : mediaType ?? '—',
          ),
        );
      }),
    ),
  );
};

const render = ([document_, examples]) => {
  document.title = `${document_.info.title} ${document_.info.version} · API reference`;
  document.getElementById('title').textContent = `${document_.info.title} ${document_.info.version}`;
  const main = document.getElementById('reference');
  const toc = document.getElementById('toc');
  main.replaceChildren(h('p', {}, prose(document_.info.description)));
  toc.replaceChildren();
  const byTag = new Map();
  for (const [path, item] of Object.entries(document_.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const tag = operation.tags?.[0] ?? 'Other';
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag).push([path, method, operation]);
    }
  }
  for (const [tag, operations] of byTag) {
    toc.append(h('h2', {}, tag), ...operations.map(([path, method, operation]) => h('a', { href: `#${operation.operationId}` }, `${method.toUpperCase()} ${path}`)));
    main.append(h('h2', { class: 'tag' }, tag), ...operations.map(([path, method, operation]) => renderOperation(document_, path, method, operation, examples[operation.operationId])));
  }
  if (location.hash) document.getElementById(location.hash.slice(1))?.scrollIntoView();
};

const load = (url) =>
  fetch(url, { headers: { Accept: 'application/json' } }).then((response) => {
    if (!response.ok) throw new Error(`GET ${url} answered ${response.status}`);
    return response.json();
  });

Promise.all([load('/openapi.json'), load('/docs/examples.json')])
  .then(render)
  .catch((error) => {
    document.getElementById('reference').replaceChildren(h('p', {}, `The description could not be loaded: ${error.message}`));
  });
