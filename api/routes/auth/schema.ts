import { z } from 'zod';

const PROVIDERS = ['github', 'google'] as const;

/** Path parameter `provider` of endpoints 11 and 12. */
export const providerSchema = z.enum(PROVIDERS);

export type Provider = z.infer<typeof providerSchema>;

/** Endpoint 13's body; endpoints 11 and 12 answer with redirects only. */
export const logoutResponseSchema = z.object({ status: z.literal('logged_out') });

export type LogoutResponse = z.infer<typeof logoutResponseSchema>;
