/** The pod controller's configuration. */
export interface ControllerConfig {
  readonly nodeName: string;
  /** How often provider pods are checked for orphans (after every host re-list, and on this interval). */
  readonly sweepIntervalMs: number;
}

export const DEFAULT_SWEEP_INTERVAL_MS = 60_000;

export function withControllerDefaults(input: Pick<ControllerConfig, 'nodeName'> & Partial<ControllerConfig>): ControllerConfig {
  return { nodeName: input.nodeName, sweepIntervalMs: input.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS };
}
