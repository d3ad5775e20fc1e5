import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import test from 'ava';
import { parse } from 'yaml';
import { eventually } from '../helpers/eventually.ts';
import { startTcpProxy } from '../helpers/startTcpProxy.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { sampleValue, scrape } from './scrape.ts';

const run = promisify(execFile);
const DASHBOARD = new URL('../../deploy/grafana/bss-overview.json', import.meta.url);
const ALERTS = new URL('../../deploy/prometheus/alerts.yml', import.meta.url);

let app: TestApp;

test.before(async () => {
  app = await startTestApp();
});

test.after.always(async () => {
  await app?.close();
});

// PromQL words that are not series names.
const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'inf', 'nan']);

/** The series names a PromQL expression selects (functions, labels, strings and ranges left out). */
const seriesNames = (expression: string): string[] => {
  const stripped = expression
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names: string[] = [];
  for (const match of stripped.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    const isCall = stripped.slice((match.index ?? 0) + match[0].length).trimStart().startsWith('(');
    if (!isCall && !KEYWORDS.has(match[0])) {
      names.push(match[0]);
    }
  }
  return names;
};

/** Every `expr` anywhere in a parsed document (Grafana targets, Prometheus rules). */
const expressions = (node: unknown): string[] => {
  if (Array.isArray(node)) {
    return node.flatMap(expressions);
  }
  if (node !== null && typeof node === 'object') {
    return Object.entries(node).flatMap(([key, value]) => (key === 'expr' && typeof value === 'string' ? [value] : expressions(value)));
  }
  return [];
};

/** Names of the series /metrics exports, from its TYPE lines: a histogram is its _bucket, _sum and _count. */
const exportedSeries = (exposition: string): Set<string> => {
  const names = new Set<string>();
  for (const [, name = '', type] of exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    if (type === 'histogram' || type === 'summary') {
      for (const suffix of ['_bucket', '_sum', '_count']) {
        names.add(`${name}${suffix}`);
      }
    } else {
      names.add(name);
    }
  }
  return names;
};

test('promtool accepts the alert rules', async (t) => {
  const { stdout } = await run('promtool', ['check', 'rules', ALERTS.pathname]);
  t.regex(stdout, /SUCCESS: \d+ rules found/);
});

test('the expression parser used below finds series names and nothing else', (t) => {
  t.deepEqual(seriesNames('histogram_quantile(0.95, sum by (le, route) (rate(bss_x_bucket{route!="a b"}[$__rate_interval]))) > 2 * max(bss_y) unless absent(bss_z)'), [
    'bss_x_bucket',
    'bss_y',
    'bss_z',
  ]);
});

test('every series the dashboard and the alert rules query is one a real API process exports', async (t) => {
  const dashboard = expressions(JSON.parse(await readFile(DASHBOARD, 'utf8')));
  const rules = expressions(parse(await readFile(ALERTS, 'utf8')));
  t.true(dashboard.length >= 10 && rules.length >= 8);
  const response = await fetch(`${app.url}/metrics`);
  t.is(response.status, 200);
  const exported = exportedSeries(await response.text());
  const queried = new Set([...dashboard, ...rules].flatMap(seriesNames));
  t.deepEqual([...queried].filter((name) => !exported.has(name)), []);
  // What the operator asked to see and be alerted on is there.
  for (const name of ['bss_queue_jobs', 'bss_simulation_queue_wait_seconds_bucket', 'bss_http_request_duration_seconds_bucket', 'bss_limit_rejections_total', 'bss_worker_pool_threads_busy']) {
    t.true(dashboard.some((expression) => seriesNames(expression).includes(name)), `dashboard queries ${name}`);
  }
  for (const name of ['bss_queue_jobs', 'bss_http_request_duration_seconds_bucket', 'bss_worker_pool_threads_busy', 'bss_ready', 'bss_dependency_up']) {
    t.true(rules.some((expression) => seriesNames(expression).includes(name)), `alerts query ${name}`);
  }
});

test('bss_ready and bss_dependency_up follow /ready: 1 when Redis is reachable, 0 once its link is cut', async (t) => {
  const proxy = await startTcpProxy(6379);
  t.teardown(() => proxy.close());
  const broken = await startTestApp({ database: app.database, env: { REDIS_URL: `redis://127.0.0.1:${proxy.port}` } });
  t.teardown(() => broken.close());
  const before = await scrape(broken.url);
  t.is(sampleValue(before, 'bss_ready'), 1);
  t.is(sampleValue(before, 'bss_dependency_up', { dependency: 'database' }), 1);
  t.is(sampleValue(before, 'bss_dependency_up', { dependency: 'redis' }), 1);
  await proxy.cut();
  const after = await eventually(async () => {
    const samples = await scrape(broken.url);
    return sampleValue(samples, 'bss_dependency_up', { dependency: 'redis' }) === 0 ? samples : undefined;
  });
  t.is(sampleValue(after, 'bss_ready'), 0);
  t.is(sampleValue(after, 'bss_dependency_up', { dependency: 'database' }), 1);
  t.is((await fetch(`${broken.url}/ready`)).status, 503);
});
