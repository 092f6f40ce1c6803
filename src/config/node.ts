/**
 * `nodes[]:` — one virtual node: its identity (name, internalIP, kubelet port, labels, taints),
 * its provider, and its actors' timing (ping, status, lease, pod retries). Types are checked by
 * the schema; the cross-field rules (a ping timeout within its interval, a lease renewed within
 * its duration, …) are the actors' own validators (`virtualNodeProblems`), run on the node with
 * defaults. The section has the shape of `VirtualNodeSettings`, so nothing maps it field by field.
 */
import { z } from 'zod';
import { virtualNodeProblems } from '../actors/virtualNodeConfig.js';
import { fraction, nonEmptyString, nonNegativeNumber, port, positiveInt, positiveNumber, stringMap } from '../lib/schemaPrimitives.js';
import { plainPath } from '../lib/fieldProblem.js';
import { providerConfigSchema } from '../providers/registry.js';

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
  /** The provider's block: validated by the schema its `type` registered (src/providers/registry.ts). */
  provider: providerConfigSchema,
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
    createDeadlineMs: positiveNumber.optional(),
    refetchMs: positiveNumber.optional(),
  }, 'a mapping (retry, graceMarginMs, createDeadlineMs, refetchMs)').optional(),
  /** How often the pod controller sweeps for orphans at the provider. */
  sweepIntervalMs: positiveNumber.optional(),
  shards: positiveInt.optional(),
}, 'a virtual node mapping').superRefine((node, ctx) => {
  for (const problem of virtualNodeProblems(node)) ctx.addIssue({ code: 'custom', message: problem.message, path: plainPath(problem.path) });
});

export type NodeFileConfig = z.infer<typeof nodeSchema>;
