// The types of what eslint.config.js exports, for the test that imports its Redis isolation selectors.
export declare const REDIS_ISOLATION: ReadonlyArray<{ readonly selector: string; readonly message: string }>;
declare const config: unknown;
export default config;
