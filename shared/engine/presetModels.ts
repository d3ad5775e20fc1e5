import { education } from './models/education.ts';
import { finance } from './models/finance.ts';
import { healthcare } from './models/healthcare.ts';
import { mobileApp } from './models/mobileApp.ts';
import type { PresetName } from './presetTypes.ts';
import type { PresetModel } from './simulator.ts';

/** Every preset's model, in catalog order; the single source of the catalog and of the generators. */
export const presetModels: Readonly<Record<PresetName, PresetModel>> = {
  education,
  finance,
  healthcare,
  mobile_app: mobileApp,
};
