/**
 * A pod's RuntimeClass at the remote cluster (gVisor, Kata: the pod's isolation), never dropped.
 * Pure; the remote read is the caller's (remotePodCalls.ts).
 *
 * - No `runtimeClassName`: nothing to do (the remote's default handler).
 * - A node with `runtimeClassMap`: a class in the map goes as the mapped remote name; any other
 *   is refused (invalid input: the node was not told what it means remotely).
 * - A node without a map: the same name, if the remote has a RuntimeClass of that name.
 * Either way the remote class is read before the pod is sent: one the remote lacks is a failed
 * create with its own reason, retried with backoff (the remote's owner may create it), never
 * a pod run under the remote's default runtime.
 */
export type RuntimeClassPlan =
  | { readonly kind: 'none' }
  | { readonly kind: 'remote'; readonly host: string; readonly remote: string }
  | { readonly kind: 'unmapped'; readonly host: string; readonly mapped: readonly string[] };

/** Event reasons of the refusals. */
export const RUNTIME_CLASS_NOT_MAPPED = 'RuntimeClassNotMapped';
export const RUNTIME_CLASS_NOT_FOUND = 'RuntimeClassNotFound';

export function runtimeClassPlan(name: string | undefined, map: Readonly<Record<string, string>> | undefined): RuntimeClassPlan {
  if (name === undefined || name === '') return { kind: 'none' };
  if (!map) return { kind: 'remote', host: name, remote: name };
  const remote = Object.hasOwn(map, name) ? map[name] : undefined;
  return remote === undefined ? { kind: 'unmapped', host: name, mapped: Object.keys(map).sort() } : { kind: 'remote', host: name, remote };
}

export function unmappedWords(plan: Extract<RuntimeClassPlan, { kind: 'unmapped' }>, nodeName: string): string {
  const mapped = plan.mapped.length > 0 ? plan.mapped.join(', ') : 'none';
  return `runtimeClassName ${plan.host} is not in the runtimeClassMap of node ${nodeName} (mapped: ${mapped}); add it to send the pod`;
}

export function notFoundWords(plan: Extract<RuntimeClassPlan, { kind: 'remote' }>): string {
  const how = plan.remote === plan.host ? 'the same name (no runtimeClassMap on this node)' : `mapped from ${plan.host}`;
  return `the remote cluster has no RuntimeClass ${plan.remote} (${how}); the pod is not sent to run under another runtime`;
}
