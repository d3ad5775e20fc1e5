import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * JSON logs. Redaction is a second line of defence: no code path logs headers, bodies or keys, but
 * should one slip in, these paths are censored before they are written.
 */
export const createLogger = (level: string, name: string, destination?: NodeJS.WritableStream): Logger =>
  pino(
    {
      name,
      level,
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: [
          'authorization',
          'cookie',
          'key',
          'token',
          'secret',
          '*.authorization',
          '*.cookie',
          '*.key',
          '*.token',
          '*.secret',
          'req.headers.authorization',
          'req.headers.cookie',
        ],
        censor: '[redacted]',
      },
    },
    destination as pino.DestinationStream | undefined,
  );
