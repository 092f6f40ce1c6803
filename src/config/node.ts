/**
 * `nodes[]:` — one virtual node: its identity (name, internalIP, kubelet port, labels, taints),
 * its provider, and its actors' timing (ping, status, lease, pod retries). Types are checked by
 * the schema; the cross-field rules (a ping timeout within its interval, a lease renewed within
 * its duration, …) are the node and lease actors' own validators, run on the node with defaults.
 */
import { z } from 'zod';
import { validateLeaseConfig, withLeaseDefaults } from '../actors/lease/config.js';
import { validateNodeConfig, withNodeDefaults } from '../actors/node/config.js';
import { fraction, nonEmptyString, nonNegativeNumber, port, positiveInt, positiveNumber, stringMap } from './primitives.js';
import { providerSchema } from './providers.js';

const taint = z.strictObject({
  key: nonEmptyString,
  value: z.string('a string').optional(),
  effect: z.enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute'], 'NoSchedule, PreferNoSchedule or NoExecute'),
}, 'a taint (key, value, effect)');

const retry = z.strictObject({ minMs: positiveNumber.optional(), maxMs: positiveNumber.optional() }, 'a mapping with minMs and/or maxMs');

export const nodeSchema = z.strictObject({
  name: z.string('a node name (DNS subdomain)'),
  /** Where the API server reaches this node's kubelet API. */
  internalIP: z.string('an IPv4 or IPv6 address'),
  kubeletPort: port.optional(),
  labels: stringMap.optional(),
  /** Replaces the default taint (virtual-kubelet.io/provider=<provider>:NoSchedule); [] for none. */
  taints: z.array(taint, 'a list of taints').optional(),
  provider: providerSchema,
  ping: z.strictObject({
    intervalMs: positiveNumber.optional(),
    timeoutMs: positiveNumber.optional(),
    failureThreshold: positiveInt.optional(),
    successThreshold: positiveInt.optional(),
  }, 'a mapping (intervalMs, timeoutMs, failureThreshold, successThreshold)').optional(),
  statusIntervalMs: positiveNumber.optional(),
  retry: retry.optional(),
  lease: z.strictObject({
    namespace: z.string('a namespace name').optional(),
    durationSeconds: positiveInt.optional(),
    renewIntervalMs: positiveNumber.optional(),
    renewTimeoutMs: positiveNumber.optional(),
    retry: retry.optional(),
  }, 'a mapping (namespace, durationSeconds, renewIntervalMs, renewTimeoutMs, retry)').optional(),
  pod: z.strictObject({
    retry: z.strictObject({
      minMs: positiveNumber.optional(),
      maxMs: positiveNumber.optional(),
      factor: z.number('a number >= 1').min(1, 'a number >= 1').optional(),
      jitter: fraction.optional(),
    }, 'a mapping (minMs, maxMs, factor, jitter)').optional(),
    graceMarginMs: nonNegativeNumber.optional(),
    refetchMs: positiveNumber.optional(),
  }, 'a mapping (retry, graceMarginMs, refetchMs)').optional(),
  /** How often the pod controller sweeps for orphans at the provider. */
  sweepIntervalMs: positiveNumber.optional(),
  shards: positiveInt.optional(),
}, 'a virtual node mapping').superRefine((node, ctx) => {
  for (const problem of nodeProblems(node)) ctx.addIssue({ code: 'custom', message: problem.message, path: problem.path });
});

export type NodeFileConfig = z.infer<typeof nodeSchema>;

interface FieldProblem {
  path: string[];
  message: string;
}

const MARK = '@';

/** The node and lease validators' problems, as (path within the node, message) pairs. */
export function nodeProblems(node: NodeFileConfig): FieldProblem[] {
  const nodeConfig = withNodeDefaults({
    nodeName: node.name,
    internalIP: node.internalIP,
    ...(node.kubeletPort !== undefined ? { kubeletPort: node.kubeletPort } : {}),
    ...(node.labels ? { labels: node.labels } : {}),
    ...(node.taints ? { taints: node.taints } : {}),
    ...(node.ping ? { ping: definedOnly(node.ping) } : {}),
    ...(node.statusIntervalMs !== undefined ? { statusIntervalMs: node.statusIntervalMs } : {}),
    ...(node.retry ? { retry: definedOnly(node.retry) } : {}),
  });
  const leaseConfig = withLeaseDefaults({ nodeName: node.name, ...definedOnly({ ...node.lease, retry: node.lease?.retry ? definedOnly(node.lease.retry) : undefined }) });
  const pod = node.pod?.retry;
  const podProblems = pod?.minMs !== undefined && pod.maxMs !== undefined && pod.maxMs < pod.minMs
    ? [`${MARK}.pod.retry.maxMs: must not be below pod.retry.minMs (${pod.minMs})`] : [];
  return [...validateNodeConfig(nodeConfig, MARK), ...validateLeaseConfig(leaseConfig, `${MARK}.lease`), ...podProblems].map(toFieldProblem);
}

/** "@.ping.timeoutMs: must not …" → {path: ['ping', 'timeoutMs'], message: 'must not …'}. */
function toFieldProblem(line: string): FieldProblem {
  const split = line.indexOf(': ');
  const field = line.slice(MARK.length + 1, split).replace(/^nodeName$/, 'name');
  const path = field.split(/\.|\[|\]/).filter((p) => p !== '').map((p) => p.replace(/^"(.*)"$/, '$1'));
  return { path, message: line.slice(split + 2) };
}

function definedOnly<T extends object>(value: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as { [K in keyof T]: Exclude<T[K], undefined> };
}
