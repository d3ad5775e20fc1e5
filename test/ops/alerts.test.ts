import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import test from 'ava';
import { parse } from 'yaml';
import { anchorsOf } from './markdown.ts';

const run = promisify(execFile);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PROMETHEUS = path.join(ROOT, 'deploy/prometheus');

interface Rule {
  readonly alert: string;
  readonly expr: string;
  readonly annotations?: Record<string, string>;
}

interface UnitTests {
  readonly rule_files: string[];
  readonly tests: Array<{ readonly alert_rule_test?: Array<{ readonly alertname: string; readonly exp_alerts: unknown[] }> }>;
}

const rules = async (): Promise<Rule[]> =>
  (parse(await readFile(path.join(PROMETHEUS, 'alerts.yml'), 'utf8')) as { groups: Array<{ rules: Rule[] }> }).groups.flatMap((group) => group.rules);

test('promtool runs the unit tests of the alert rules and they pass', async (t) => {
  const { stdout, stderr } = await run('promtool', ['test', 'rules', 'alerts.test.yml'], { cwd: PROMETHEUS });
  t.regex(`${stdout}${stderr}`, /SUCCESS/);
});

test('every alert rule has a unit test in which it fires', async (t) => {
  const unit = parse(await readFile(path.join(PROMETHEUS, 'alerts.test.yml'), 'utf8')) as UnitTests;
  t.deepEqual(unit.rule_files, ['alerts.yml']);
  const firing = new Set(unit.tests.flatMap((each) => each.alert_rule_test ?? []).filter((check) => check.exp_alerts.length > 0).map((check) => check.alertname));
  t.deepEqual((await rules()).map((rule) => rule.alert).filter((alert) => !firing.has(alert)), []);
});

test('every alert links to its runbook: a section of docs/runbooks.md that exists', async (t) => {
  const anchors = anchorsOf(await readFile(path.join(ROOT, 'docs/runbooks.md'), 'utf8'));
  for (const rule of await rules()) {
    const url = rule.annotations?.runbook_url ?? '';
    const [file, anchor = ''] = url.split('#');
    t.is(file, 'docs/runbooks.md', rule.alert);
    t.true(anchors.has(anchor), `${rule.alert}: no section #${anchor} in docs/runbooks.md`);
  }
});

test('the rules alert on the 5xx rate, failed and timed-out runs, queue wait, and the loss of Redis or PostgreSQL', async (t) => {
  const all = await rules();
  const alerting = (pattern: RegExp): boolean => all.some((rule) => pattern.test(rule.expr));
  t.true(alerting(/bss_http_request_duration_seconds_count\{status_code=~"5\.\."\}/), '5xx rate');
  t.true(alerting(/bss_simulations_total\{outcome=~?"[^"]*\bfailed\b/), 'failed runs');
  t.true(alerting(/bss_simulations_total\{outcome="timed_out"\}/), 'timed-out runs');
  t.true(alerting(/bss_simulation_queue_wait_seconds_bucket/), 'queue wait');
  t.true(alerting(/bss_dependency_up\{dependency="redis"\}/), 'Redis lost');
  t.true(alerting(/bss_dependency_up\{dependency="database"\}/), 'PostgreSQL lost');
});

test('the Prometheus scrape example is valid, loads the rules and sends METRICS_TOKEN as a Bearer token to every API process', async (t) => {
  const config = parse(await readFile(path.join(PROMETHEUS, 'prometheus.yml'), 'utf8')) as {
    rule_files: string[];
    scrape_configs: Array<{
      metrics_path: string;
      authorization?: { type: string; credentials_file?: string };
      dns_sd_configs?: Array<{ names: string[]; port: number }>;
    }>;
  };
  t.deepEqual(config.rule_files, ['alerts.yml']);
  const [job] = config.scrape_configs;
  t.is(job?.metrics_path, '/metrics');
  t.is(job?.authorization?.type, 'Bearer');
  t.truthy(job?.authorization?.credentials_file);
  // The compose file's API replicas, by name, each a target of its own.
  t.deepEqual(job?.dns_sd_configs?.[0], { names: ['api'], type: 'A', port: 3000 });
  // promtool checks the file as Prometheus would load it, with the token file and rules in place.
  const directory = await mkdtemp(path.join(os.tmpdir(), 'bss-prometheus-'));
  t.teardown(() => rm(directory, { recursive: true, force: true }));
  const token = path.join(directory, 'metrics_token');
  await writeFile(token, 'a-metrics-token', { mode: 0o600 });
  await copyFile(path.join(PROMETHEUS, 'alerts.yml'), path.join(directory, 'alerts.yml'));
  const text = (await readFile(path.join(PROMETHEUS, 'prometheus.yml'), 'utf8')).replace(job?.authorization?.credentials_file ?? '', token);
  await writeFile(path.join(directory, 'prometheus.yml'), text);
  const { stdout } = await run('promtool', ['check', 'config', path.join(directory, 'prometheus.yml')]);
  t.regex(stdout, /SUCCESS: 1 rule files found/);
});
