import type { RouterMiddleware } from '@koa/router';
import type { Config } from '../../../shared/config.ts';
import type { AppState } from '../../AppState.ts';

const DEFAULT_PORTS: Readonly<Record<string, string>> = { 'http:': '80', 'https:': '443' };

/**
 * A sign-in must start on PUBLIC_URL's host: the pre-login cookie is set for the host the browser asked,
 * and the provider sends the browser back to PUBLIC_URL's, where a cookie of another host (127.0.0.1 when
 * PUBLIC_URL says localhost) is missing and the callback could only fail. So a start on another name of the
 * same listener (same port, other host name) is first sent to the same path on PUBLIC_URL.
 *
 * Only the same port counts as "the same listener": a Host without a port is taken to use PUBLIC_URL's
 * scheme's default (TLS usually ends at a proxy, so the request's own scheme says nothing). Requests on
 * another port (a test server, an internal address) are left alone.
 */
export const startOnPublicHost =
  (config: Config): RouterMiddleware<AppState> =>
  async (ctx, next) => {
    const publicUrl = new URL(config.publicUrl);
    const publicPort = publicUrl.port || DEFAULT_PORTS[publicUrl.protocol] || '';
    let requested: URL;
    try {
      requested = new URL(`${publicUrl.protocol}//${ctx.get('host')}`);
    } catch {
      await next();
      return;
    }
    const requestedPort = requested.port || publicPort;
    if (requested.hostname !== publicUrl.hostname && requestedPort === publicPort) {
      ctx.set('Cache-Control', 'no-store');
      ctx.redirect(`${config.publicUrl}${ctx.path}${ctx.search}`);
      return;
    }
    await next();
  };
