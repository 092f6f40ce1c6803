/**
 * The one file that touches nact. Tether's cells sit on nact's spawn/dispatch/stop and its onCrash
 * hook; everything nact gets wrong is designed around here or in `cell.ts`:
 * - an onCrash that throws kills the process (nact does not await it): Tether's hook never throws;
 * - escalate + a parent that answers `resume` leaves the child stuck: Tether never uses nact's
 *   escalate, supervisors decide in plain code and answer only `reset` or `stop`;
 * - spawnStateless ignores onCrash: never used;
 * - anonymous names are 32-bit random and collide: every actor is named by its caller;
 * - a parent copies its children map on every message it handles: pods live under bounded shards,
 *   and messages go straight to the child.
 */
import { dispatch as nactDispatch, spawn as nactSpawn, start as nactStart, stop as nactStop } from 'nact';
import type { Ref, SupervisionContext } from 'nact';

export type EngineRef = Ref<unknown>;

/** What a cell's crash hook answers: the only two nact decisions Tether uses. */
export type EngineDecision = 'reset' | 'stop';

export interface EngineActorSpec<S, M> {
  readonly handle: (state: S, msg: M) => S | Promise<S>;
  readonly initialState: () => S;
  readonly onCrash: (error: unknown) => Promise<EngineDecision>;
  readonly afterStop: () => void;
}

export function startEngine(name: string): EngineRef {
  // nact reads the name from an object argument (`hd.name`); its typings say a bare string, which
  // nact would ignore and replace with a random id.
  return nactStart({ name } as unknown as string) as EngineRef;
}

export function stopEngine(ref: EngineRef): void {
  nactStop(ref);
}

export function spawnActor<S, M>(parent: EngineRef, name: string, spec: EngineActorSpec<S, M>): EngineRef {
  return nactSpawn(parent, (state: S, msg: M) => spec.handle(state, msg), name, {
    initialStateFunc: () => spec.initialState(),
    onCrash: async (_msg: unknown, error: Error | undefined, ctx: SupervisionContext<M, EngineRef>) => {
      try {
        const decision = await spec.onCrash(error);
        return decision === 'reset' ? ctx.reset : ctx.stop;
      } catch {
        // Never let a supervision bug become an unhandled rejection that kills the process.
        return ctx.stop;
      }
    },
    afterStop: () => spec.afterStop(),
  }) as EngineRef;
}

export function dispatchTo(ref: EngineRef, msg: unknown): void {
  nactDispatch(ref, msg);
}

export function stopActor(ref: EngineRef): void {
  nactStop(ref);
}
