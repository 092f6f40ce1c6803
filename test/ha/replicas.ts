/**
 * Replicas for the node-lock tests: each its own actor system, its node locks over one shared
 * in-memory Lease store, on one manual clock; and the clock advanced in small steps.
 */
import type { Test } from 'tap';
import { drain } from '../support/until.js';
import type { ManualClock } from '../support/manualClock.js';
import type { LeaseListApi } from '../../src/adapters/kubernetes/leaseApi.js';
import { silentLogger } from '../../src/adapters/logger.js';
import { NodeLocks } from '../../src/ha/nodeLocks.js';
import type { ElectionSettings } from '../../src/ha/settings.js';
import { ActorSystem } from '../../src/supervisors/actorSystem.js';
import type { FakeLeaseApi } from '../actors/fakes/fakeLeaseApi.js';

export const NS = 'tether-system';
export const settings: ElectionSettings = { namespace: NS, identity: 'a', leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };

/** A replica: its actor system, its node locks over the shared store, and which nodes it drives. */
export interface Replica {
  readonly locks: NodeLocks;
  readonly driving: Set<string>;
  readonly log: string[];
  readonly system: ActorSystem;
}

/** `store` serves the replica's node locks and its membership Lease alike. */
export function replica(identity: string, nodes: readonly string[], store: LeaseListApi, clock: ManualClock): Replica {
  const driving = new Set<string>();
  const log: string[] = [];
  const system = new ActorSystem({ clock, logger: silentLogger, onFatal: () => {}, random: () => 0.5 });
  const locks = new NodeLocks(system.root, { ...settings, identity }, nodes.map((name) => ({
    name,
    leaseApi: store,
    onAcquired: () => {
      driving.add(name);
      log.push(`${clock.now()} +${name}`);
    },
    onLost: () => {
      driving.delete(name);
      log.push(`${clock.now()} -${name}`);
    },
  })), { clock, logger: silentLogger, members: store });
  locks.start();
  // A replica's system goes with its locks (a stop that times out must not leave lock actors looking).
  void locks.done.then(() => system.stop());
  return { locks, driving, log, system };
}

/** Advances the manual clock in small steps, letting each step's messages and API calls settle. */
export async function run(clock: ManualClock, ms: number, step = 100): Promise<void> {
  for (let done = 0; done < ms; done += step) {
    clock.advance(step);
    await drain(8);
  }
}

export async function advanceUntil(clock: ManualClock, what: () => boolean, limitMs: number): Promise<number> {
  const start = clock.now();
  while (!what()) {
    if (clock.now() - start > limitMs) throw new Error(`not within ${limitMs} ms`);
    await run(clock, 100);
  }
  return clock.now() - start;
}

/** The shared store, except that while `frozen` every call of this replica hangs (its API traffic is silently dropped). */
export function freezable(store: FakeLeaseApi): { api: FakeLeaseApi; freeze(): void } {
  let frozen = false;
  const hang = <T>(): Promise<T> => new Promise<T>(() => undefined);
  const api = Object.create(store) as FakeLeaseApi;
  api.getLease = (ns, name) => (frozen ? hang() : store.getLease(ns, name));
  api.updateLease = (l) => (frozen ? hang() : store.updateLease(l));
  api.createLease = (l) => (frozen ? hang() : store.createLease(l));
  api.listLeases = (ns, selector) => (frozen ? hang() : store.listLeases(ns, selector));
  return { api, freeze: () => (frozen = true) };
}

/** Replica `a` holding vk-1 (through `aApi`: the store unless said), then `b` a standby beside it for `standbyMs`. */
export async function holderAndStandby(t: Test, clock: ManualClock, store: FakeLeaseApi, standbyMs: number, aApi: LeaseListApi = store): Promise<{ a: Replica; b: Replica }> {
  const a = replica('a', ['vk-1'], aApi, clock);
  t.teardown(() => a.locks.stop());
  await advanceUntil(clock, () => a.driving.has('vk-1'), 3_000);
  const b = replica('b', ['vk-1'], store, clock);
  t.teardown(() => b.locks.stop());
  await run(clock, standbyMs);
  return { a, b };
}
