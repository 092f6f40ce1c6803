/**
 * A provider's reconcilers, run in its node's subtree:
 *
 *   node-<name>
 *   └── reconcilers           supervisor (reconcilerRestartPolicy)
 *       └── <reconciler name> reconciler actor (src/runtime/reconcilerActor.ts)
 *
 * Why a group of their own: a reconciler that keeps crashing (a bug in one reconcile) must not
 * spend the node subtree's restart budget and take the node down with it. The group has no
 * budget: each reconciler is restarted with a backoff up to a minute, for ever, and shows its
 * restarts and last error in the tree. Each restart re-lists its keys, so nothing is lost.
 */
import { backoffPolicy } from '../lib/backoff.js';
import type { Reconciler } from '../lib/reconcile.js';
import type { ActorRef } from '../runtime/behavior.js';
import { reconcilerActor, type ReconcilerMsg } from '../runtime/reconcilerActor.js';
import type { RestartPolicy } from '../supervisors/restartPolicy.js';
import type { Supervisor } from '../supervisors/supervisor.js';

export const reconcilerRestartPolicy: RestartPolicy = {
  strategy: 'one-for-one',
  restart: 'permanent',
  backoff: { ...backoffPolicy(1_000, 60_000), resetAfterMs: 300_000 },
};

/** Spawns the `reconcilers` group under `parent` (nothing when there are none); names must be unique. */
export function spawnReconcilers(parent: Supervisor, reconcilers: readonly Reconciler[], policy: RestartPolicy = reconcilerRestartPolicy): Map<string, ActorRef<ReconcilerMsg>> {
  const refs = new Map<string, ActorRef<ReconcilerMsg>>();
  if (reconcilers.length === 0) return refs;
  parent.spawnSupervisor('reconcilers', {
    kind: 'reconcilers',
    policy,
    onStart: (group) => {
      for (const reconciler of reconcilers) refs.set(reconciler.name, group.spawn(reconciler.name, reconcilerActor(reconciler)));
    },
  });
  return refs;
}
