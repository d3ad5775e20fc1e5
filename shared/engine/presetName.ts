/** The one list of preset names, in catalog order; the type, the catalog and the request schemas derive from it. */
export const PRESET_NAMES = ['education', 'finance', 'healthcare', 'mobile_app'] as const;

export type PresetName = (typeof PRESET_NAMES)[number];
