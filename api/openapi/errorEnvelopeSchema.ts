import { z } from 'zod';

/** The error envelope every failure is rendered in (api/middleware/errorHandler.ts), as the specification shows it. */
export const errorEnvelopeSchema = z.strictObject({
  error: z.strictObject({
    message: z.string().describe('Human-readable text.'),
    status_code: z.int().min(400).max(599).describe('The HTTP status.'),
    details: z
      .looseObject({
        code: z.string().regex(/^[a-z][a-z_]*$/).describe('Stable snake_case error code.'),
      })
      .describe('`code` and case-specific fields (`limit`, `retry_after`, `issues`, ...).'),
    request_id: z.string().min(1).describe('Equals the `X-Request-ID` response header.'),
  }),
});
