import Router from '@koa/router';
import { PRESETS, resolveEngineVersion, resolvePreset } from '../../../shared/engine/index.ts';
import { publishedFidelity } from '../../../shared/engine/fidelity/publishedFidelity.ts';
import { internalError, presetNotFound, validationFailed } from '../../../shared/errors/errors.ts';
import { validateQuery } from '../../middleware/validate.ts';
import type { AppState } from '../../AppState.ts';
import type { Services } from '../../Services.ts';
import { isPresetAvailable } from '../../runs/isPresetAvailable.ts';
import { presentPreset } from './presentPreset.ts';
import { presetFidelityQuerySchema } from './schema.ts';

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
  // Any kept engine's report: `engine_version` as POST /v1/simulations reads it, the newest when absent.
  router.get('/v1/presets/:preset/fidelity', validateQuery(presetFidelityQuerySchema), (ctx) => {
    const preset = resolvePreset(ctx.params.preset ?? '');
    if (preset === undefined) {
      throw presetNotFound(ctx.params.preset ?? '');
    }
    const requested = ctx.state.input.engine_version;
    const serviceVersion = resolveEngineVersion(requested);
    if (serviceVersion === undefined || !preset.engine_versions.includes(serviceVersion)) {
      throw validationFailed([
        { path: 'engine_version', message: `Unknown engine version; a major or one of: ${preset.engine_versions.join(', ')}.` },
      ]);
    }
    const report = publishedFidelity(preset.name, serviceVersion);
    if (report === undefined) {
      // test/engine/fidelity.test.ts guarantees a report for every preset of every engine version.
      throw internalError();
    }
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = report;
  });

  return router;
};
