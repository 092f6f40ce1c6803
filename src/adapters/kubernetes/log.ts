/**
 * The logging the Kubernetes adapters need. Structural, so the project's `Logger`
 * (src/adapters/logger.ts) fits without this folder depending on it.
 */
export interface KubeLog {
  debug(msg: string, fields?: Readonly<Record<string, unknown>>): void;
  warn(msg: string, fields?: Readonly<Record<string, unknown>>): void;
}

export const noopKubeLog: KubeLog = { debug: () => undefined, warn: () => undefined };
