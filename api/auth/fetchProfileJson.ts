import { LoginError } from './LoginError.ts';

const PROFILE_TIMEOUT_MS = 5000;

/** GET a provider's JSON with the user's access token; any failure is the login's `exchange_failed`. */
export const fetchProfileJson = async (url: string, accessToken: string, headers: Record<string, string> = {}): Promise<unknown> => {
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { Accept: 'application/json', 'User-Agent': 'behavioral-simulation-service', ...headers, Authorization: `Bearer ${accessToken}` },
      redirect: 'error',
      signal: AbortSignal.timeout(PROFILE_TIMEOUT_MS),
    });
  } catch (error) {
    throw new LoginError('exchange_failed', 'profile request failed', { cause: error });
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new LoginError('exchange_failed', `profile request answered ${response.status}`);
  }
  try {
    return (await response.json());
  } catch (error) {
    throw new LoginError('exchange_failed', 'profile response is not JSON', { cause: error });
  }
};
