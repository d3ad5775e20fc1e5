import { readFile } from 'node:fs/promises';
import test from 'ava';
import { parse } from 'yaml';
import { configSchema } from '../../shared/config.ts';

// Docker is not available to the test suite; these check the compose file's promises statically.
const read = (file: string): Promise<string> => readFile(new URL(`../../${file}`, import.meta.url), 'utf8');

interface Service {
  readonly profiles?: string[];
  readonly command?: string[];
  readonly env_file?: string | string[];
  readonly environment?: Record<string, string>;
  readonly deploy?: { readonly replicas?: number | string };
  readonly healthcheck?: { readonly test: string[] };
  readonly ports?: string[];
  readonly depends_on?: Record<string, { readonly condition: string; readonly required?: boolean }>;
  readonly stop_grace_period?: string;
  readonly volumes?: string[];
}

const loadCompose = async (): Promise<Record<string, Service>> => (parse(await read('docker-compose.yml'), { merge: true }) as { services: Record<string, Service> }).services;

test('docker-compose runs API and worker replicas, each scalable on its own, the API replicas behind one published port', async (t) => {
  const services = await loadCompose();
  const { api, worker, proxy } = services;
  t.deepEqual(api?.command, ['node', 'api/server.ts']);
  t.deepEqual(worker?.command, ['node', 'worker/main.ts']);
  t.regex(String(api?.deploy?.replicas), /^\$\{API_REPLICAS:-[2-9]\}$/);
  t.regex(String(worker?.deploy?.replicas), /^\$\{WORKER_REPLICAS:-[2-9]\}$/);
  // A replicated service cannot publish a fixed host port; the proxy does, and finds replicas by DNS.
  t.is(api?.ports, undefined);
  t.is(worker?.ports, undefined);
  t.deepEqual(proxy?.ports, ['${HTTP_PORT:-3000}:3000']);
  const nginx = await read('deploy/nginx.conf');
  t.regex(nginx, /resolver 127\.0\.0\.11 valid=\d+s/);
  t.regex(nginx, /set \$api_upstream api:3000;\s+proxy_pass http:\/\/\$api_upstream;/);
  t.regex(nginx, /proxy_next_upstream error timeout;/);
});

test('docker-compose: health checks on /ready, Redis with noeviction and AOF, migrations before the app', async (t) => {
  const services = await loadCompose();
  t.true(services.api?.healthcheck?.test.join(' ').includes('/ready'));
  t.true(services.proxy?.healthcheck?.test.join(' ').includes('/ready'));
  const redis = services.redis?.command?.join(' ') ?? '';
  t.regex(redis, /--maxmemory-policy noeviction/);
  t.regex(redis, /--appendonly yes/);
  t.truthy(services.redis?.volumes?.some((volume) => volume.endsWith(':/data')));
  for (const name of ['api', 'worker']) {
    t.is(services[name]?.depends_on?.migrate?.condition, 'service_completed_successfully', name);
    t.is(services[name]?.depends_on?.postgres?.condition, 'service_healthy', name);
    t.is(services[name]?.depends_on?.redis?.condition, 'service_healthy', name);
    t.is(services[name]?.environment?.NODE_ENV, 'production', name);
  }
  // Graceful stops: longer than the drain of a simulation (30 s by default) plus the process's margin.
  t.true(Number.parseInt(services.api?.stop_grace_period ?? '0', 10) >= 45);
  t.true(Number.parseInt(services.worker?.stop_grace_period ?? '0', 10) >= 40);
});

test('SESSION_SECRET and the OAuth settings come from the env file, whose example lists only real settings', async (t) => {
  const services = await loadCompose();
  for (const name of ['api', 'worker', 'migrate']) {
    t.deepEqual([services[name]?.env_file].flat(), ['.env'], name);
  }
  const example = (await read('.env.example'))
    .split('\n')
    .map((line) => /^#?\s*([A-Z][A-Z0-9_]*)=/.exec(line)?.[1])
    .filter((name): name is string => name !== undefined);
  const settings = new Set(Object.keys(configSchema.shape));
  const composeOnly = new Set(['API_REPLICAS', 'WORKER_REPLICAS', 'HTTP_PORT', 'POSTGRES_PASSWORD']);
  for (const name of example) {
    t.true(settings.has(name) || composeOnly.has(name), `${name} is neither a setting nor a compose variable`);
  }
  for (const name of ['POSTGRES_PASSWORD', 'PUBLIC_URL', 'SESSION_SECRET', 'ADMIN_TOKEN', 'METRICS_TOKEN', ...[...settings].filter((setting) => setting.startsWith('OAUTH_'))]) {
    t.true(example.includes(name), `.env.example lacks ${name}`);
  }
  t.true((await read('.gitignore')).split('\n').includes('.env'));
});

test('docker-compose cluster profile: six Redis nodes joined once into 3 masters with a replica each, and the app on it through REDIS_CLUSTER_NODES', async (t) => {
  const services = await loadCompose();
  const nodes = Object.keys(services).filter((name) => /^redis-node-\d$/.test(name));
  t.is(nodes.length, 6);
  for (const name of nodes) {
    t.deepEqual(services[name]?.profiles, ['cluster'], name);
    const command = services[name]?.command?.join(' ') ?? '';
    t.regex(command, /--cluster-enabled yes/, name);
    t.regex(command, /--maxmemory-policy noeviction/, name);
    t.truthy(services[name]?.volumes?.some((volume) => volume.endsWith(':/data')), name);
  }
  const create = services['redis-cluster-create'];
  t.deepEqual(create?.profiles, ['cluster']);
  const script = create?.command?.join(' ') ?? '';
  t.regex(script, /redis-cli --cluster create/);
  t.regex(script, /--cluster-replicas 1 --cluster-yes/);
  t.deepEqual(Object.keys(create?.depends_on ?? {}).sort(), [...nodes].sort());
  // Every app service reads the cluster's seeds from the environment, a real setting, and waits for the
  // cluster only when the profile is on.
  const settings = new Set(Object.keys(configSchema.shape));
  for (const name of ['api', 'worker', 'migrate']) {
    const environment = services[name]?.environment ?? {};
    t.is(environment.REDIS_CLUSTER_NODES, '${REDIS_CLUSTER_NODES:-}', name);
    for (const variable of Object.keys(environment)) {
      t.true(settings.has(variable), `${name}: ${variable} is not a setting`);
    }
    t.like(services[name]?.depends_on?.['redis-cluster-create'], { condition: 'service_completed_successfully', required: false }, name);
  }
  // The seeds the file's own instructions give are node services of the profile.
  const seeds = /REDIS_CLUSTER_NODES=(\S+) docker compose --profile cluster up/.exec(await read('docker-compose.yml'))?.[1] ?? '';
  t.true(seeds.split(',').every((seed) => nodes.includes(seed.replace(/:6379$/, ''))), seeds);
});

test('docker-compose holds no database password: PostgreSQL and every app service take it from the env file, and refuse to start without it', async (t) => {
  const text = await read('docker-compose.yml');
  const services = await loadCompose();
  const required = /^\$\{POSTGRES_PASSWORD:\?[^}]+\}$/;
  t.regex(services.postgres?.environment?.POSTGRES_PASSWORD ?? '', required);
  for (const name of ['api', 'worker', 'migrate']) {
    const url = services[name]?.environment?.DATABASE_URL ?? '';
    t.regex(url, /^postgres:\/\/bss:\$\{POSTGRES_PASSWORD:\?[^}]+\}@postgres:5432\/behavioral_sim$/, name);
  }
  // No literal password anywhere: every postgres:// URL carries the variable.
  for (const [url] of text.matchAll(/postgres:\/\/[^\s"']+/g)) {
    t.regex(url, /^postgres:\/\/bss:\$\{POSTGRES_PASSWORD/, url);
  }
  t.regex(await read('.env.example'), /^POSTGRES_PASSWORD=$/m);
});

test('the worker has a health check: a script of the image that reads its own heartbeat in Redis', async (t) => {
  const services = await loadCompose();
  const check = services.worker?.healthcheck?.test ?? [];
  t.deepEqual(check, ['CMD', 'node', 'scripts/checkWorkerHealth.ts']);
  // The script is in the image: the Dockerfile copies scripts/ and what it imports.
  const dockerfile = await read('Dockerfile');
  for (const folder of ['scripts', 'shared']) {
    t.regex(dockerfile, new RegExp(`^COPY ${folder} \\./${folder}$`, 'm'), folder);
  }
  t.truthy(await read('scripts/checkWorkerHealth.ts'));
});

test('the first account and key are created inside the containers with the documented commands', async (t) => {
  const services = await loadCompose();
  const operations = await read('docs/operations.md');
  const commands = [...operations.matchAll(/^docker compose exec (\S+) node (scripts\/admin\.ts) (create-account|create-key) (.*)$/gm)];
  t.deepEqual(commands.map((match) => match[3]).sort(), ['create-account', 'create-key']);
  for (const [, service, script] of commands) {
    // A service that runs the app image with its settings (DATABASE_URL, REDIS_URL) and holds the script.
    t.is(services[service ?? '']?.environment?.DATABASE_URL?.startsWith('postgres://'), true, service);
    t.deepEqual([services[service ?? '']?.env_file].flat(), ['.env'], service);
    t.truthy(await read(script ?? ''));
  }
  // The compose file's own header says the same.
  t.regex(await read('docker-compose.yml'), /^#\s+docker compose exec api node scripts\/admin\.ts create-account /m);
});
