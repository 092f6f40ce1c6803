import { sleep, type Clock } from '../lib/clock.js';
import type { Logger } from '../adapters/logger.js';
import type { CrashDecision, RestartType } from './supervision.js';
import type { ActorDetail, ActorRegistry, ActorSnapshot, ActorStatus, Inspectable, RestartBudget } from './actorRegistry.js';
import type { StateSummary } from './behavior.js';
import type { LoopSlice } from './loopSlice.js';
import { dispatchTo, spawnActor, stopActor, type EngineDecision, type EngineRef } from './nactEngine.js';
import { errorMessage } from '../lib/errorMessage.js';
import { definedOnly } from '../lib/defaults.js';
import { SupervisionHistory, WORKER_HISTORY, type SupervisionEvent } from './supervisionHistory.js';

/** What every cell shares with the rest of its actor system. */
export interface CellEnvironment {
  readonly registry: ActorRegistry;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly random: () => number;
  /** Bounds each stretch of back-to-back actor work so timers run between (loopSlice.ts); none: unbounded. */
  readonly slice?: LoopSlice;
  /** Called when the root itself fails: the whole system cannot continue. */
  readonly onFatal: (error: unknown) => void;
  /** Counts messages sent to actors that had already stopped. */
  countDeadLetter(): void;
  /** Counts supervision outcomes (a restart, a child given up, a supervisor escalating) by the crashed actor's kind. */
  countSupervision(outcome: 'restart' | 'give-up' | 'escalation', kind: string): void;
}

/** The parent's side of supervision, as a cell sees it. */
export interface ParentSupervisor {
  readonly path: string;
  childCrashed(child: Cell, error: unknown): CrashDecision;
  childExited(child: Cell): void;
  childGaveUp(child: Cell, reason: string, error: unknown): void;
  childStopped(child: Cell): void;
  /** How many more crashes `child` may have before it is given up. */
  childBudget(child: Cell): RestartBudget | undefined;
}

/**
 * Envelopes are the runtime's wrapping of an actor's own protocol. A message sent by one of the
 * actor's own effects carries the incarnation that ran the effect (`from`): it is handled only by
 * that incarnation, never by a later one.
 */
export type Envelope<M> =
  | { readonly k: 'start' }
  | { readonly k: 'msg'; readonly msg: M; readonly from?: unknown }
  | { readonly k: 'crash'; readonly error: unknown }
  | { readonly k: 'restart' };

/** Thrown inside a sibling's mailbox by an all-for-one restart; not a failure of that sibling. */
export class SiblingRestart extends Error {
  constructor() {
    super('restarted with a crashed sibling (all-for-one)');
  }
}

export { errorMessage as describeError } from '../lib/errorMessage.js';

/**
 * One live actor or supervisor on top of nact: its place in the tree, its status and restart
 * history for the registry, and the crash hook that asks the parent supervisor what to do.
 * Subclasses say what an incarnation is and how envelopes are handled.
 */
export abstract class Cell<M = unknown, I = unknown> implements Inspectable {
  readonly path: string;
  status: ActorStatus = 'starting';
  restarts = 0;
  processed = 0;
  mailboxDepth = 0;
  lastError: { message: string; at: string } | null = null;
  protected engineRef: EngineRef | undefined;
  private ended = false;
  /**
   * Aborted once, when the cell stops for good (ends a backoff wait early). Made only when a
   * restart waits: an AbortController costs ~0.7 KiB, and most cells never need one.
   */
  private lifetime: AbortController | undefined;
  /** Made at the first supervision event (supervisionHistory.ts): most pod actors never have one. */
  private history: SupervisionHistory | undefined;

  constructor(
    protected readonly env: CellEnvironment,
    readonly parent: ParentSupervisor | null,
    readonly name: string,
    readonly kind: string,
    readonly restartType: RestartType,
  ) {
    this.path = parent ? `${parent.path}/${name}` : name;
  }

  protected abstract beginIncarnation(): I;
  protected abstract endIncarnation(): void;
  protected abstract handleEnvelope(incarnation: I, envelope: Envelope<M>): I;
  protected abstract summary(): StateSummary | null;
  abstract childCells(): Iterable<Cell>;
  /** How many children, without listing them (snapshots of 100k actors ask for every cell). */
  abstract get childCount(): number;

  get stopped(): boolean {
    return this.ended;
  }

  /** Starts (or, for a permanent child's normal exit, starts again) the underlying nact actor. */
  spawnUnder(parentRef: EngineRef): void {
    this.status = 'starting';
    this.engineRef = spawnActor<I, Envelope<M>>(parentRef, this.name, this);
    this.env.registry.register(this, this.parent === null);
    this.deliver({ k: 'start' });
  }

  // The engine's side (EngineActorSpec): methods rather than closures, since every pod has a cell.

  handle(incarnation: I, envelope: Envelope<M>): I | Promise<I> {
    // Past the loop slice's budget, the message waits for the next loop turn (loopSlice.ts); a
    // cell stopped meanwhile handles nothing more, as nact would not have delivered it.
    const turn = this.env.slice?.enter();
    if (turn) return turn.then(() => (this.ended ? incarnation : this.handle(incarnation, envelope)));
    try {
      this.mailboxDepth = Math.max(0, this.mailboxDepth - 1);
      this.processed++;
      this.env.registry.changes.touched(this.path);
      return this.handleEnvelope(incarnation, envelope);
    } finally {
      this.env.slice?.end();
    }
  }

  /** How many events this cell's history keeps. */
  protected historyCapacity(): number {
    return WORKER_HISTORY;
  }

  /** Records what happened to this cell (its supervisor's decisions, its restarts). */
  recordSupervision(event: SupervisionEvent): void {
    (this.history ??= new SupervisionHistory(this.historyCapacity())).record(event);
    this.env.registry.changes.touched(this.path);
  }

  detail(): ActorDetail {
    return { history: this.history?.list() ?? [], historyTotal: this.history?.total ?? 0, ...definedOnly({ giveUp: this.parent?.childBudget(this) }) };
  }

  initialState(): I {
    return this.beginIncarnation();
  }

  afterStop(): void {
    this.markStopped();
  }

  /** Makes this cell crash from inside its own mailbox, after what is already queued. */
  crash(error: unknown): void {
    this.deliver({ k: 'crash', error });
  }

  /** Restarts this cell because a sibling crashed under an all-for-one policy. */
  restartWithSibling(): void {
    this.deliver({ k: 'restart' });
  }

  /** Stops this cell (and its subtree) for good. Queued messages are dropped. */
  stop(): void {
    if (this.stopped) return;
    this.status = 'stopping';
    if (this.engineRef) stopActor(this.engineRef);
    this.markStopped();
  }

  protected deliver(envelope: Envelope<M>): void {
    if (this.stopped || !this.engineRef) {
      this.env.countDeadLetter();
      return;
    }
    this.mailboxDepth++;
    dispatchTo(this.engineRef, envelope);
  }

  /** Idempotent bookkeeping for a cell that no longer runs, however it stopped. */
  markStopped(): void {
    if (this.stopped) return;
    this.ended = true;
    this.lifetime?.abort();
    this.endIncarnation();
    this.mailboxDepth = 0;
    if (this.status !== 'failed') this.status = 'stopped';
    for (const child of [...this.childCells()]) child.markStopped();
    if (this.status === 'failed') return; // stays visible in the tree until its parent forgets it
    this.env.registry.deregister(this);
    this.parent?.childStopped(this);
  }

  /** Removes a failed cell from the registry (its parent has let it go). */
  forget(): void {
    this.env.registry.deregister(this);
  }

  async onCrash(error: unknown): Promise<EngineDecision> {
    this.endIncarnation();
    this.env.registry.changes.touched(this.path);
    if (this.stopped) return 'stop';
    if (error instanceof SiblingRestart) {
      this.status = 'restarting';
      this.deliver({ k: 'start' });
      return 'reset';
    }
    this.lastError = { message: errorMessage(error), at: new Date(this.env.clock.now()).toISOString() };
    if (!this.parent) {
      this.status = 'failed';
      this.env.logger.error('the root supervisor failed; the actor system cannot continue', { path: this.path, error: this.lastError.message });
      this.env.onFatal(error);
      return 'stop';
    }
    const decision = this.parent.childCrashed(this, error);
    switch (decision.action) {
      case 'restart':
        return this.restartAfter(decision.delayMs);
      case 'give-up':
        this.status = 'failed';
        this.parent.childGaveUp(this, decision.reason, error);
        return 'stop';
      case 'escalate':
        this.status = 'failed';
        return 'stop';
    }
  }

  private async restartAfter(delayMs: number): Promise<EngineDecision> {
    this.status = 'restarting';
    this.restarts++;
    if (delayMs > 0) {
      try {
        this.lifetime ??= new AbortController();
        if (this.stopped) return 'stop';
        await sleep(this.env.clock, delayMs, this.lifetime.signal);
      } catch {
        return 'stop'; // stopped while waiting to restart
      }
    }
    this.recordSupervision({ type: 'restarted', at: this.env.clock.now(), incarnation: this.restarts + 1 });
    this.deliver({ k: 'start' });
    return 'reset';
  }

  snapshot(): ActorSnapshot {
    const children = this.childCount;
    return {
      path: this.path,
      name: this.name,
      kind: this.kind,
      parent: this.parent?.path ?? null,
      status: this.status,
      restarts: this.restarts,
      lastError: this.lastError,
      mailboxDepth: this.mailboxDepth,
      processed: this.processed,
      children,
      summary: this.summary(),
    };
  }
}
