import Router from '@koa/router';
import { ENGINE_VERSION, PRESETS, resolvePreset } from '../../../shared/engine/index.ts';
import { publishedFidelity } from '../../../shared/engine/fidelity/publishedFidelity.ts';
import { internalError, presetNotFound } from '../../../shared/errors/errors.ts';
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

  // Measured once per engine version at build time and committed (npm run fidelity -- --write), so a
  // request only looks the report up: it never generates the samples on the event loop.
  router.get('/v1/presets/:preset/fidelity', (ctx) => {
    const preset = resolvePreset(ctx.params.preset ?? '');
    if (preset === undefined) {
      throw presetNotFound(ctx.params.preset ?? '');
    }
    const report = publishedFidelity(preset.name, ENGINE_VERSION);
    if (report === undefined) {
      // test/engine/fidelity.test.ts guarantees a report for every preset of the newest engine.
      throw internalError();
    }
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = report;
  });

  return router;
};
