/**
 * The probes, as the API server's own: a list of named checks, `[+]name ok` / `[-]name failed:
 * why`, and 200 only when every check passes.
 * - liveness (`/healthz`): the process answers and the root supervisor is running.
 * - readiness (`/readyz`): additionally, every virtual node's watches have synced and its node
 *   actor has registered the Node.
 */
import type { ActorRegistry } from '../runtime/actorRegistry.js';
import { rootPathOf } from './actorQuery.js';
import type { AgentView } from './agentView.js';
import { definedOnly } from '../lib/defaults.js';

export interface Check {
  readonly name: string;
  readonly ok: boolean;
  readonly reason?: string;
}

export function rootCheck(registry: ActorRegistry): Check {
  const path = rootPathOf(registry);
  const status = path === undefined ? undefined : registry.get(path)?.snapshot().status;
  if (status === 'running' || status === 'restarting') return { name: 'actor-system', ok: true };
  return { name: 'actor-system', ok: false, reason: status === undefined ? 'no root actor' : `root is ${status}` };
}

export function livenessChecks(agent: AgentView): Check[] {
  return [rootCheck(agent.system.registry)];
}

export function readinessChecks(agent: AgentView): Check[] {
  const checks = [rootCheck(agent.system.registry)];
  if (agent.nodes.length === 0) {
    // A standby replica (leader election, every lock held elsewhere) is ready: it must not stall a rollout.
    checks.push(agent.standbyAllowed ? { name: 'nodes', ok: true } : { name: 'nodes', ok: false, reason: 'no virtual node configured' });
  }
  for (const node of agent.nodes) {
    const synced = node.watchesSynced();
    checks.push({ name: `node/${node.name}/watches`, ok: synced, ...definedOnly({ reason: synced ? undefined : 'pod or Node watch has not listed yet' }) });
    const summary = agent.system.registry.get(`${node.path}/node`)?.snapshot().summary;
    const registered = summary?.['registered'] === true;
    checks.push({ name: `node/${node.name}/registered`, ok: registered, ...definedOnly({ reason: registered ? undefined : 'the Node object is not registered yet' }) });
  }
  return checks;
}

/** The body and status code of a probe. */
export function renderChecks(checks: readonly Check[], verbose: boolean): { code: number; body: string } {
  const ok = checks.every((c) => c.ok);
  if (ok && !verbose) return { code: 200, body: 'ok\n' };
  const lines = checks.map((c) => (c.ok ? `[+]${c.name} ok` : `[-]${c.name} failed: ${c.reason ?? 'unknown'}`));
  lines.push(ok ? 'check passed' : 'check failed');
  return { code: ok ? 200 : 503, body: `${lines.join('\n')}\n` };
}
