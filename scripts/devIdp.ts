import { parseArgs } from 'node:util';
import { createDevIdp, DEFAULT_DEV_IDENTITY } from './createDevIdp.ts';

// `npm run dev:idp -- [--port 4010] [--subject 1001] [--email a@b.test] [--name "A B"] [--unverified]`:
// a local OAuth 2.0 provider standing in for both GitHub and Google, so sign-in works offline.
const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '4010' },
    host: { type: 'string', default: '127.0.0.1' },
    subject: { type: 'string', default: DEFAULT_DEV_IDENTITY.subject },
    email: { type: 'string', default: DEFAULT_DEV_IDENTITY.email ?? '' },
    name: { type: 'string', default: DEFAULT_DEV_IDENTITY.name },
    unverified: { type: 'boolean', default: false },
  },
});

const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  process.stderr.write(`--port: not a port: ${values.port}\n`);
  process.exit(1);
}

const idp = await createDevIdp({ port, host: values.host });
idp.setIdentity({ subject: values.subject, email: values.email === '' ? null : values.email, emailVerified: !values.unverified, name: values.name });

const lines = [
  `Development identity provider listening on ${idp.url}`,
  '',
  'Point the service at it (both providers use this one server):',
  '',
  ...Object.entries(idp.env).map(([name, value]) => `  export ${name}=${value}`),
  '',
  `Every sign-in returns: ${JSON.stringify({ subject: values.subject, email: values.email, emailVerified: !values.unverified, name: values.name })}`,
  'Change it, or refuse the next sign-in (denied consent), while running:',
  `  curl -X PUT ${idp.url}/_dev/identity -H 'Content-Type: application/json' \\`,
  `    -d '{"subject":"2002","email":"other@example.test","emailVerified":true,"name":"Other Person"}'`,
  `  curl -X POST ${idp.url}/_dev/deny-next`,
  '',
  'Then open <PUBLIC_URL>/v1/auth/github or <PUBLIC_URL>/v1/auth/google in a browser. Ctrl-C stops.',
];
process.stdout.write(`${lines.join('\n')}\n`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    idp.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
