import Router from '@koa/router';
import { PRESETS, resolvePreset } from '../../../shared/engine/index.ts';
import { presetNotFound } from '../../../shared/errors/errors.ts';
import type { AppState } from '../../AppState.ts';
import { presentPreset } from './presentPreset.ts';

// The catalog is static for a given engine version: render it once, not per request.
const catalog = PRESETS.map(presentPreset);
const byName = new Map(catalog.map((preset) => [preset.name, preset]));

export const presetRoutes = (): Router<AppState> => {
  const router = new Router<AppState>();

  router.get('/v1/presets', (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = catalog;
  });

  router.get('/v1/presets/:preset', (ctx) => {
    const preset = resolvePreset(ctx.params.preset ?? '');
    if (preset === undefined) {
      throw presetNotFound(ctx.params.preset ?? '');
    }
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = byName.get(preset.name);
  });

  return router;
};
