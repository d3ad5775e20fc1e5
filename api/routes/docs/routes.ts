import { readFileSync } from 'node:fs';
import Router from '@koa/router';
import { ENGINE_VERSION, PRESETS } from '../../../shared/engine/index.ts';
import { publishedFidelity } from '../../../shared/engine/fidelity/publishedFidelity.ts';
import { buildOpenApiDocument } from '../../openapi/buildOpenApiDocument.ts';
import { isPresetAvailable } from '../../runs/isPresetAvailable.ts';
import { presentPreset } from '../presets/presentPreset.ts';
import { buildOperationExamples, type OpenApiDocument } from './operationExamples.ts';
import type { AppState } from '../../AppState.ts';
import type { Services } from '../../Services.ts';
import { ASSET_HEADERS, PAGE_HEADERS } from '../web/securityHeaders.ts';

const PAGE_DIR = new URL('./page/', import.meta.url);

const ASSETS: Readonly<Record<string, { readonly type: string; readonly file: string }>> = {
  'docs.js': { type: 'text/javascript; charset=utf-8', file: 'docs.js' },
  'docs.css': { type: 'text/css; charset=utf-8', file: 'docs.css' },
  'favicon.svg': { type: 'image/svg+xml', file: 'favicon.svg' },
};

/**
 * The API's description: /openapi.json (OpenAPI 3.1, built once from the routes' zod schemas) and /docs, a
 * small self-contained page that renders it, with no asset from anywhere else, and a request and an answer
 * for every operation in curl, TypeScript and Python (/docs/examples.json, built from the same document).
 */
export const docsRoutes = (services: Services): Router<AppState> => {
  const router = new Router<AppState>();
  const built = buildOpenApiDocument({ publicUrl: services.config.publicUrl });
  const document = JSON.stringify(built);
  const page = readFileSync(new URL('docs.html', PAGE_DIR));
  const assets = new Map<string, { type: string; body: Buffer | string }>(
    Object.entries(ASSETS).map(([name, asset]) => [name, { type: asset.type, body: readFileSync(new URL(asset.file, PAGE_DIR)) }]),
  );
  // The preset operations answer with the real catalog and the real measured facts: an example built from
  // their schemas would show a preset named "string".
  const catalog = PRESETS.map((preset) => ({ ...presentPreset(preset), available: isPresetAvailable(services.config, preset) }));
  const answers = {
    listPresets: catalog,
    getPreset: catalog.find((preset) => preset.name === 'finance'),
    getPresetFidelity: publishedFidelity('finance', ENGINE_VERSION),
  };
  assets.set('examples.json', { type: 'application/json', body: JSON.stringify(buildOperationExamples(built as OpenApiDocument, answers)) });

  router.get('/openapi.json', (ctx) => {
    ctx.set('Cache-Control', 'no-cache');
    // Public, so client generators and viewers on other origins may fetch it.
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.type = 'application/json';
    ctx.body = document;
  });

  router.get('/docs', (ctx) => {
    ctx.set(PAGE_HEADERS);
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = page;
  });

  router.get('/docs/:asset', (ctx, next) => {
    // A lookup in a fixed map: no request path ever reaches the file system.
    const asset = assets.get(ctx.params.asset ?? '');
    if (asset === undefined) {
      return next();
    }
    ctx.set(ASSET_HEADERS);
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = asset.type;
    ctx.body = asset.body;
  });

  return router;
};
