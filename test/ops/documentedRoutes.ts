import type Router from '@koa/router';
import type Koa from 'koa';

/** `METHOD /path/{param}` of every route layer the app's routers hold (HEAD, which Koa adds to GET, left out). */
export const registeredRoutes = (app: Koa<never> | Koa<any>): Set<string> => {
  const routes = new Set<string>();
  for (const middleware of app.middleware) {
    const router = (middleware as { router?: Router }).router;
    for (const layer of router?.stack ?? []) {
      const path = String(layer.path)
        .replace(/:([A-Za-z0-9_]+)/g, '{$1}')
        .replace(/\/\*([A-Za-z0-9_]+)/g, '/{$1}');
      const methods = layer.methods.filter((method) => method !== 'HEAD');
      // router.all() registers every method: one entry says so.
      if (methods.length > 5) {
        routes.add(`ALL ${path}`);
        continue;
      }
      for (const method of methods) {
        routes.add(`${method} ${path}`);
      }
    }
  }
  return routes;
};
