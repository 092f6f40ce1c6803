/**
 * The part of the project's one `Logger` (src/adapters/logger.ts) the Kubernetes adapters and
 * provider use: a view of it, not a second logging interface, so any Logger fits.
 */
import type { Logger } from '../logger.js';

export type KubeLog = Pick<Logger, 'debug' | 'warn'>;

export const noopKubeLog: KubeLog = { debug: () => undefined, warn: () => undefined };
