/**
 * The config file (`tether.yaml`) and what overrides it: the schema (one concept per file:
 * node, restart policies, the whole file; each provider's block is the schema of its folder,
 * listed in src/providers/registry.ts), the overrides from flags and
 * `TETHER_*` variables, and problem reporting that names the file, the field and what is expected.
 * Loading never throws on a bad config; it returns every problem. See docs/configuration.md.
 */
export { loadConfigFile, parseConfig, type LoadOptions, type LoadResult } from './load.js';
export { configSchema, DEFAULT_LOG_LEVEL, DEFAULT_SHUTDOWN_TIMEOUT_MS, type TetherConfig } from './schema.js';
export { CONFIG_ENV, NODE_INTERNAL_IP_ENV, OVERRIDES, applyOverrides, type FlagValues, type OverrideSpec } from './overrides.js';
export { resolveRestartPolicies, type RestartPolicies } from './restartPolicies.js';
export type { NodeFileConfig } from './node.js';
export type { ProviderConfig } from '../providers/registry.js';
