/**
 * `restartPolicies:` in the config file: partial overrides of the supervisors' default policies
 * (src/supervisors/restartPolicy.ts) for the root, each virtual node's subtree, and each pod actor.
 * What is left out keeps its default; the merged policy is checked by `validateRestartPolicy`.
 */
import { z } from 'zod';
import { definedOnly, withDefaults } from '../lib/defaults.js';
import { under, type FieldProblem } from '../lib/fieldProblem.js';
import {
  nodeRestartPolicy, podRestartPolicy, rootRestartPolicy, validateRestartPolicy, type RestartPolicy,
} from '../supervisors/restartPolicy.js';
import { fraction, nonNegativeInt, nonNegativeNumber, positiveNumber } from '../lib/schemaPrimitives.js';

const intensity = z.strictObject({ maxRestarts: nonNegativeInt, withinMs: positiveNumber }, 'a mapping with maxRestarts and withinMs');

const policy = z.strictObject({
  strategy: z.enum(['one-for-one', 'all-for-one'], 'one-for-one or all-for-one').optional(),
  restart: z.enum(['permanent', 'transient', 'temporary'], 'permanent, transient or temporary').optional(),
  childIntensity: intensity.optional(),
  intensity: intensity.optional(),
  backoff: z.strictObject({
    minMs: nonNegativeNumber.optional(),
    maxMs: nonNegativeNumber.optional(),
    factor: z.number('a number >= 1').min(1, 'a number >= 1').optional(),
    jitter: fraction.optional(),
    resetAfterMs: nonNegativeNumber.optional(),
  }, 'a mapping (minMs, maxMs, factor, jitter, resetAfterMs)').optional(),
}, 'a restart policy mapping');

export type RestartPolicyInput = z.infer<typeof policy>;

export const restartPoliciesSchema = z.strictObject({
  root: policy.optional(),
  node: policy.optional(),
  pod: policy.optional(),
}, 'a mapping with root, node and/or pod');

export type RestartPoliciesInput = z.infer<typeof restartPoliciesSchema>;

export interface RestartPolicies {
  readonly root: RestartPolicy;
  readonly node: RestartPolicy;
  readonly pod: RestartPolicy;
}

export const defaultRestartPolicies: RestartPolicies = { root: rootRestartPolicy, node: nodeRestartPolicy, pod: podRestartPolicy };

export function mergeRestartPolicy(base: RestartPolicy, input: RestartPolicyInput | undefined): RestartPolicy {
  if (!input) return base;
  const childIntensity = input.childIntensity ?? base.childIntensity;
  const intensityOut = input.intensity ?? base.intensity;
  return {
    strategy: input.strategy ?? base.strategy,
    restart: input.restart ?? base.restart,
    ...definedOnly({ childIntensity, intensity: intensityOut }),
    backoff: withDefaults(base.backoff, input.backoff),
  };
}

export function resolveRestartPolicies(input: RestartPoliciesInput | undefined): RestartPolicies {
  return {
    root: mergeRestartPolicy(rootRestartPolicy, input?.root),
    node: mergeRestartPolicy(nodeRestartPolicy, input?.node),
    pod: mergeRestartPolicy(podRestartPolicy, input?.pod),
  };
}

/** Cross-field problems of the merged policies, with paths in the file (`['restartPolicies', 'pod', 'backoff', 'maxMs']`). */
export function restartPolicyProblems(input: RestartPoliciesInput | undefined): FieldProblem[] {
  const merged = resolveRestartPolicies(input);
  return (['root', 'node', 'pod'] as const).flatMap((k) => under(['restartPolicies', k], validateRestartPolicy(merged[k])));
}
