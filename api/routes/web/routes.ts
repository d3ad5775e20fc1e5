import Router from '@koa/router';
import type { AppContext, AppState } from '../../AppState.ts';
import { loadWebAssets, type WebAsset, type WebAssets } from './loadWebAssets.ts';
import { ASSET_HEADERS, PAGE_HEADERS } from './securityHeaders.ts';

/** The console's pages below /account (Overview is /account itself); web/assets/js/consoleRouter.js names the same. */
const CONSOLE_PAGES: ReadonlySet<string> = new Set(['run', 'history', 'models', 'streams', 'keys', 'usage']);
/** A stream's own page, /account/streams/{id} (docs/console.md "Streams"): the id as the API spells it. */
const STREAM_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

// Asset URLs carry the digest of every asset, so a response under the current version never changes.
const IMMUTABLE = 'public, max-age=31536000, immutable';
// Pages and assets of another version (a page from before a deploy) are revalidated on every use.
const REVALIDATE = 'no-cache';

/** The landing page, the console and their assets: all bundled, nothing from a CDN. */
export const webRoutes = (web: WebAssets = loadWebAssets()): Router<AppState> => {
  const router = new Router<AppState>();

  const page = (name: string) => (ctx: AppContext) => {
    ctx.set(PAGE_HEADERS);
    send(ctx, web.pages.get(name) as WebAsset, REVALIDATE);
  };
  router.get('/', page('index'));
  router.get('/account', page('account'));
  // The console's other pages are the same document: its script shows the page the path names (History
  // API routing, docs/console.md), so a deep link or a reload lands where it was. Unknown names are 404s.
  router.get('/account/:page', (ctx, next) => {
    if (!CONSOLE_PAGES.has(ctx.params.page ?? '')) {
      return next();
    }
    return page('account')(ctx);
  });
  router.get('/account/streams/:id', (ctx, next) => (STREAM_ID.test(ctx.params.id ?? '') ? page('account')(ctx) : next()));

  router.get('/assets/:version/*path', (ctx, next) => {
    // A lookup in the in-memory map is the whole access check: no request path ever reaches the file system.
    const asset = web.assets.get(ctx.params.path ?? '');
    if (asset === undefined) {
      return next();
    }
    ctx.set(ASSET_HEADERS);
    send(ctx, asset, ctx.params.version === web.version ? IMMUTABLE : REVALIDATE);
  });

  return router;
};

const send = (ctx: AppContext, asset: WebAsset, cacheControl: string): void => {
  const encoding = pickEncoding(ctx, asset);
  ctx.status = 200;
  ctx.type = asset.type;
  ctx.set('Cache-Control', cacheControl);
  ctx.set('Vary', 'Accept-Encoding');
  // One strong validator per representation: the compressed bytes differ from the plain ones.
  ctx.set('ETag', `"${asset.etag}${encoding === 'identity' ? '' : `-${encoding}`}"`);
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  if (encoding === 'identity') {
    ctx.body = asset.identity;
    return;
  }
  ctx.set('Content-Encoding', encoding);
  ctx.body = encoding === 'br' ? asset.br : asset.gzip;
};

const pickEncoding = (ctx: AppContext, asset: WebAsset): 'br' | 'gzip' | 'identity' => {
  if (asset.br === undefined || asset.gzip === undefined) {
    return 'identity';
  }
  // Asked one at a time: negotiation by list would follow the header's order, and browsers list gzip first.
  if (ctx.acceptsEncodings('br') === 'br') {
    return 'br';
  }
  return ctx.acceptsEncodings('gzip') === 'gzip' ? 'gzip' : 'identity';
};
