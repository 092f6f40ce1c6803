/**
 * Runs reconcilers the way a node's subtree does (under `<node>/reconcilers`), for tests of a
 * provider part without a whole virtual node: its loops only reconcile while an actor runs them.
 */
import { silentLogger } from '../../src/adapters/logger.js';
import { spawnReconcilers } from '../../src/actors/reconcilers.js';
import type { Clock } from '../../src/lib/clock.js';
import type { Reconciler } from '../../src/lib/reconcile.js';
import { ActorSystem } from '../../src/supervisors/actorSystem.js';
import { nodeRestartPolicy } from '../../src/supervisors/restartPolicy.js';

export function runReconcilers(t: { teardown(fn: () => void): void }, reconcilers: readonly Reconciler[], clock?: Clock): ActorSystem {
  const system = new ActorSystem({ logger: silentLogger, onFatal: () => {}, ...(clock ? { clock } : {}) });
  t.teardown(() => system.stop());
  spawnReconcilers(system.root.spawnSupervisor('node-test', { kind: 'virtual-node', policy: nodeRestartPolicy }), reconcilers);
  return system;
}
