import Router from '@koa/router';
import { PRESETS, resolvePreset } from '../../../shared/engine/index.ts';
import { presetNotFound } from '../../../shared/errors/errors.ts';
import type { AppState } from '../../AppState.ts';
import type { Services } from '../../Services.ts';
import { isPresetAvailable } from './isPresetAvailable.ts';
import { presentPreset } from './presentPreset.ts';

export const presetRoutes = (services: Services): Router<AppState> => {
  const router = new Router<AppState>();
  // Static for a given engine version and configuration: rendered once, not per request.
  const catalog = PRESETS.map((preset) => ({ ...presentPreset(preset), available: isPresetAvailable(services.config, preset) }));
  const byName = new Map(catalog.map((preset) => [preset.name, preset]));

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
