import { backoffPolicy, type BackoffPolicy } from '../../lib/backoff.js';
import { withDefaults } from '../../lib/defaults.js';
import { fieldChecks, retryProblems, type FieldProblem } from '../../lib/fieldProblem.js';

/**
 * The lease actor's configuration, with the kubelet's and virtual-kubelet's defaults: a 40 s
 * Lease in `kube-node-lease`, renewed every 10 s (a quarter of its duration), failed renewals
 * retried after 200 ms doubling to 7 s (with 20 % jitter), each renewal given up after 10 s.
 */
export interface LeaseConfig {
  readonly nodeName: string;
  readonly namespace: string;
  /** `spec.leaseDurationSeconds`: how long the node lifecycle controller trusts one renewal. */
  readonly durationSeconds: number;
  readonly renewIntervalMs: number;
  /** One renewal (all its calls) that has not succeeded by then has failed, and is retried. */
  readonly renewTimeoutMs: number;
  readonly retry: BackoffPolicy;
}

export type LeaseConfigInput = Pick<LeaseConfig, 'nodeName'> &
  Partial<Omit<LeaseConfig, 'nodeName' | 'retry'>> & { readonly retry?: Partial<LeaseConfig['retry']> };

export const DEFAULT_LEASE_NAMESPACE = 'kube-node-lease';
export const DEFAULT_LEASE_DURATION_SECONDS = 40;
export const DEFAULT_RENEW_INTERVAL_MS = 10_000;
export const DEFAULT_RENEW_TIMEOUT_MS = 10_000;
export const defaultLeaseRetry = backoffPolicy(200, 7_000);

export function withLeaseDefaults(input: LeaseConfigInput): LeaseConfig {
  return {
    nodeName: input.nodeName,
    namespace: input.namespace ?? DEFAULT_LEASE_NAMESPACE,
    durationSeconds: input.durationSeconds ?? DEFAULT_LEASE_DURATION_SECONDS,
    renewIntervalMs: input.renewIntervalMs ?? DEFAULT_RENEW_INTERVAL_MS,
    renewTimeoutMs: input.renewTimeoutMs ?? Math.min(DEFAULT_RENEW_TIMEOUT_MS, input.renewIntervalMs ?? DEFAULT_RENEW_INTERVAL_MS),
    retry: withDefaults(defaultLeaseRetry, input.retry),
  };
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** Every problem with a lease configuration, each with its field's path in LeaseConfig; empty when sound. */
export function validateLeaseConfig(config: LeaseConfig): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const { check, positive, positiveInt } = fieldChecks(problems);
  const ns: unknown = config.namespace;
  check(typeof ns === 'string' && ns.length <= 63 && DNS_LABEL.test(ns), ['namespace'], 'a namespace name (DNS label)', ns);
  positiveInt(config.durationSeconds, ['durationSeconds']);
  positive(config.renewIntervalMs, ['renewIntervalMs']);
  if (config.durationSeconds > 0 && config.renewIntervalMs >= config.durationSeconds * 1000) {
    problems.push({ path: ['renewIntervalMs'], message: `must be shorter than durationSeconds (${config.durationSeconds} s), or the lease expires between renewals` });
  }
  positive(config.renewTimeoutMs, ['renewTimeoutMs']);
  problems.push(...retryProblems(config.retry, ['retry']));
  return problems;
}
