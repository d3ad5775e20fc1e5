import { createDevIdp, type DevIdentity, type DevIdp, type DevOutcome } from '../../scripts/createDevIdp.ts';

export type { DevIdentity, DevOutcome };

export type TestIdp = DevIdp;

/**
 * The development identity provider (npm run dev:idp) in this process on an ephemeral port. Choose who a
 * login returns with setOutcomeForState (one login, race-free among concurrent tests), setIdentity (every
 * later login) or denyNext; hand `env` to startTestApp's `env` to point both providers at it.
 */
export const startTestIdp = (): Promise<TestIdp> => createDevIdp({ port: 0, host: '127.0.0.1' });
