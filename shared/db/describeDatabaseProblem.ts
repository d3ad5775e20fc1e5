import { redactUrl } from './redactUrl.ts';

// SQLSTATE codes (PostgreSQL, Appendix A) and the socket errors a connection attempt can end in.
const INVALID_PASSWORD = '28P01';
const INVALID_AUTHORIZATION = '28000';
const INVALID_CATALOG_NAME = '3D000';
const INSUFFICIENT_PRIVILEGE = '42501';
const CANNOT_CONNECT_NOW = '57P03';
const TOO_MANY_CONNECTIONS = '53300';
const UNREACHABLE = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET', 'ETIMEDOUT']);
const UNRESOLVED = new Set(['ENOTFOUND', 'EAI_AGAIN']);

/** The error's code: a SQLSTATE, a socket error, or the first one of an AggregateError (IPv6 then IPv4). */
const codeOf = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') {
    return code;
  }
  const nested = (error as { errors?: unknown } | null)?.errors;
  return Array.isArray(nested) && nested.length > 0 ? codeOf(nested[0]) : undefined;
};

const partsOf = (databaseUrl: string): { role: string; database: string; host: string } => {
  try {
    const url = new URL(databaseUrl);
    return { role: decodeURIComponent(url.username) || 'postgres', database: decodeURIComponent(url.pathname.slice(1)), host: url.host };
  } catch {
    return { role: '?', database: '?', host: '?' };
  }
};

/**
 * One sentence that names what is really wrong with DATABASE_URL's PostgreSQL and how to fix it: a wrong
 * role or password is not "unreachable". Decided by the error's code, never by its message text (which is
 * the server's, localised, and may change); the URL is shown without its password.
 */
export const describeDatabaseProblem = (error: unknown, databaseUrl: string, phase: 'connect' | 'migrate' = 'connect'): string => {
  const { role, database, host } = partsOf(databaseUrl);
  const at = redactUrl(databaseUrl);
  const code = codeOf(error);
  if (phase === 'migrate' && code === INSUFFICIENT_PRIVILEGE) {
    return `Role "${role}" may not apply the migrations in database "${database}" at ${at}: run them as a role that owns the database (npm run migrate with that DATABASE_URL).`;
  }
  switch (code) {
    case INVALID_PASSWORD:
      return `PostgreSQL at ${at} refused the password of role "${role}": put the right password in DATABASE_URL.`;
    case INVALID_AUTHORIZATION:
      return `PostgreSQL at ${at} refused role "${role}" (no such role, or pg_hba.conf does not let it connect from here): create the role, or set DATABASE_URL's user to one that exists.`;
    case INVALID_CATALOG_NAME:
      return `PostgreSQL at ${at} has no database "${database}": create it (createdb ${database}), or set DATABASE_URL to an existing one.`;
    case INSUFFICIENT_PRIVILEGE:
      return `PostgreSQL at ${at} has no database "${database}" and role "${role}" may not create it: create it (createdb ${database}), or grant the role CREATEDB.`;
    case CANNOT_CONNECT_NOW:
      return `PostgreSQL at ${at} is starting up or shutting down: start again in a moment.`;
    case TOO_MANY_CONNECTIONS:
      return `PostgreSQL at ${at} has no free connections (max_connections reached): close some, or raise max_connections.`;
    default:
      break;
  }
  if (code !== undefined && UNRESOLVED.has(code)) {
    return `PostgreSQL's host in DATABASE_URL (${host}) does not resolve: fix the host name in DATABASE_URL.`;
  }
  if (code !== undefined && UNREACHABLE.has(code)) {
    return `PostgreSQL is not reachable at ${at}: start it (your system's PostgreSQL service, for example \`sudo systemctl start postgresql\`) or point DATABASE_URL at one.`;
  }
  if (phase === 'migrate') {
    return `Applying the migrations to database "${database}" at ${at} failed${code === undefined ? '' : ` (${code})`}: nothing of the failed migration was kept; see PostgreSQL's log.`;
  }
  // A timeout (no code) or anything else: say what we know without the driver's text.
  return `PostgreSQL at ${at} did not accept the connection${code === undefined ? '' : ` (${code})`}: check that it is running and that DATABASE_URL is right.`;
};
