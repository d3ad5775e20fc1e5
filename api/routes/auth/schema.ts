import { z } from 'zod';

const PROVIDERS = ['github', 'google'] as const;

/** Path parameter `provider` of endpoints 11 and 12. */
export const providerSchema = z.enum(PROVIDERS);

export type Provider = z.infer<typeof providerSchema>;

/** Endpoint 13's body; endpoints 11 and 12 answer with redirects only. */
export const logoutResponseSchema = z.object({ status: z.literal('logged_out') });

export type LogoutResponse = z.infer<typeof logoutResponseSchema>;

/** GET /v1/auth/providers: what the landing page offers. */
export const signInProvidersResponseSchema = z.object({
  providers: z
    .array(
      z.object({
        name: providerSchema,
        label: z.string().describe('The name to show, e.g. `GitHub`.'),
        url: z.string().describe('Where sign-in starts: `/v1/auth/{provider}`.'),
      }),
    )
    .describe('The providers configured on this server (a client id is set), in a stable order; possibly none.'),
  local_sign_in: z
    .string()
    .nullable()
    .describe('In development (`NODE_ENV=development`), how to sign in on this machine without a real provider; null otherwise.'),
});

export type SignInProvidersResponse = z.infer<typeof signInProvidersResponseSchema>;
