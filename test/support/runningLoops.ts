/**
 * Runs a provider's loops as the node's subtree does (`runReconcilers`) and resolves once every
 * one of them listens, so that what a test does next reaches them instead of falling between
 * their start and their first listing.
 */
import type { Clock } from '../../src/lib/clock.js';
import type { Reconciler } from '../../src/lib/reconcile.js';
import type { ActorSystem } from '../../src/supervisors/actorSystem.js';
import { runReconcilers } from './reconcilers.js';
import { drain, until } from './until.js';

/** The tree path of the loop named `name` under `runReconcilers`. */
export const loopPath = (name: string): string => `tether/node-test/reconcilers/${name}`;

export async function runLoops(t: { teardown(fn: () => void): void }, loops: readonly Reconciler[], clock: Clock): Promise<ActorSystem> {
  const sys = runReconcilers(t, loops, clock);
  await until('the loops run', () => loops.every((loop) => sys.registry.get(loopPath(loop.name))?.snapshot().status === 'running'));
  await drain(5);
  return sys;
}
