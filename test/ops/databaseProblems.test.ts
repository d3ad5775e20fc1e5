import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { describeDatabaseProblem } from '../../shared/db/describeDatabaseProblem.ts';
import { testRedisEnv } from '../helpers/testRedis.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const URL_WITH_PASSWORD = 'postgres://bss:s3cret@db.internal:5432/behavioral_sim';

const start = (databaseUrl: string): Promise<{ code: number | null; stderr: string }> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'scripts/start.ts')], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', NODE_ENV: 'development', LOG_LEVEL: 'silent', ...testRedisEnv(), DATABASE_URL: databaseUrl, PORT: '9' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.once('exit', (code) => resolve({ code, stderr }));
  });

test('npm start with a role the server does not know names the role, not an unreachable server', async (t) => {
  const result = await start('postgres://no_such_role_for_bss@127.0.0.1:5432/behavioral_sim');
  t.is(result.code, 1);
  const lines = result.stderr.trim().split('\n');
  t.is(lines.length, 1, result.stderr);
  t.is(
    lines[0],
    'PostgreSQL at postgres://no_such_role_for_bss@127.0.0.1:5432/behavioral_sim refused role "no_such_role_for_bss" (no such role, or pg_hba.conf does not let it connect from here): create the role, or set DATABASE_URL\'s user to one that exists.',
  );
});

// The shared test server trusts every local connection, so the codes it cannot produce are given as the
// driver reports them: by SQLSTATE or socket error code (the mapping never reads message text).
const cases: ReadonlyArray<[string, unknown, RegExp]> = [
  ['a wrong password (28P01)', { code: '28P01' }, /^PostgreSQL at postgres:\/\/bss:\*\*\*@db\.internal:5432\/behavioral_sim refused the password of role "bss": put the right password in DATABASE_URL\.$/],
  ['a missing database it may not create (42501)', { code: '42501' }, /has no database "behavioral_sim" and role "bss" may not create it: create it \(createdb behavioral_sim\), or grant the role CREATEDB\.$/],
  ['a missing database (3D000)', { code: '3D000' }, /has no database "behavioral_sim": create it/],
  ['a server starting up (57P03)', { code: '57P03' }, /is starting up or shutting down/],
  ['a full server (53300)', { code: '53300' }, /has no free connections/],
  ['a host that does not resolve', { code: 'ENOTFOUND' }, /host in DATABASE_URL \(db\.internal:5432\) does not resolve/],
  ['a server that is down (both address families refused)', new AggregateError([Object.assign(new Error('x'), { code: 'ECONNREFUSED' })]), /^PostgreSQL is not reachable at /],
  ['a timeout without a code', new Error('Connection terminated due to connection timeout'), /did not accept the connection: check that it is running/],
];
for (const [title, error, expected] of cases) {
  test(`start-up names ${title} and never shows the password`, (t) => {
    const sentence = describeDatabaseProblem(error, URL_WITH_PASSWORD);
    t.regex(sentence, expected);
    t.false(sentence.includes('s3cret'));
    t.is(sentence.split('\n').length, 1);
  });
}

test('a migration the role may not apply is named as such, not as a missing database', (t) => {
  t.regex(describeDatabaseProblem({ code: '42501' }, URL_WITH_PASSWORD, 'migrate'), /^Role "bss" may not apply the migrations in database "behavioral_sim"/);
});
