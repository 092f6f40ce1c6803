import type { ActorDetail, Inspectable, RestartBudget } from '../runtime/actorRegistry.js';
import type { ActorBehavior, ActorRef, StateSummary } from '../runtime/behavior.js';
import { Cell, SiblingRestart, describeError, type CellEnvironment, type Envelope, type ParentSupervisor } from '../runtime/cell.js';
import type { EngineRef } from '../runtime/nactEngine.js';
import { WorkerCell } from '../runtime/workerCell.js';
import type { RestartPolicy, RestartType } from './restartPolicy.js';
import { classify, SUPERVISOR_HISTORY, type SupervisionEvent } from '../runtime/supervisionHistory.js';
import { crashesLeft, decideOnCrash, newLedger, restartsAfterNormalExit, type ChildLedger, type CrashDecision } from './supervisionDecision.js';

export interface SupervisorSpec {
  readonly policy: RestartPolicy;
  readonly kind?: string;
  /**
   * Spawns the supervisor's standing children; runs at every start, including after the
   * supervisor itself was restarted (its old children are gone by then). Dynamic children (pods)
   * are not re-created here: their owner re-reads the truth and spawns them again.
   */
  readonly onStart?: (self: Supervisor) => void;
  /** Summary shown in the actor tree. */
  readonly summarize?: () => StateSummary;
  /** Read-only parts shown below the children in the actor tree (runtime/partView.ts). */
  readonly views?: (self: Supervisor) => Iterable<Inspectable>;
}

export interface ChildOptions {
  /** Overrides the policy's restart type for this child. */
  readonly restart?: RestartType;
  /** Told when this child is given up after exceeding its restart budget (e.g. record an Event). */
  readonly onGiveUp?: (reason: string, error: unknown) => void;
}

interface ChildEntry {
  readonly cell: Cell;
  readonly options: ChildOptions;
  /** Starts a fresh cell with the same spec, for a permanent child that exited normally. */
  readonly respawn: () => Cell;
}

class EscalatedFailure extends Error {
  constructor(supervisor: string, reason: string, cause: unknown) {
    super(`${supervisor}: ${reason} (last: ${describeError(cause)})`, { cause });
  }
}

/**
 * A supervisor: a cell whose children are actors or other supervisors, and whose restart policy
 * decides what each child's crash means. Decisions are made in plain code from the policy and the
 * restart ledger (see supervisionDecision.ts); nact only executes `reset` or `stop`.
 */
export class Supervisor extends Cell<never, true> implements ParentSupervisor {
  private readonly children = new Map<string, ChildEntry>();
  private readonly ledgers = new Map<string, ChildLedger>();
  private supervisorRestarts: readonly number[] = [];

  constructor(
    env: CellEnvironment,
    parent: ParentSupervisor | null,
    name: string,
    private readonly spec: SupervisorSpec,
    restartType: RestartType,
  ) {
    super(env, parent, name, spec.kind ?? 'supervisor', restartType);
  }

  get policy(): RestartPolicy {
    return this.spec.policy;
  }

  /** Spawns a named worker actor under this supervisor. Names must be unique among siblings. */
  spawn<S, M, E>(name: string, behavior: ActorBehavior<S, M, E>, options: ChildOptions = {}): ActorRef<M> {
    const make = (): WorkerCell<S, M, E> =>
      new WorkerCell(this.env, this, name, behavior, options.restart ?? this.spec.policy.restart);
    return this.adopt(name, make, options) as WorkerCell<S, M, E>;
  }

  /** Spawns a named child supervisor. */
  spawnSupervisor(name: string, spec: SupervisorSpec, options: ChildOptions = {}): Supervisor {
    const make = (): Supervisor => new Supervisor(this.env, this, name, spec, options.restart ?? this.spec.policy.restart);
    return this.adopt(name, make, options) as Supervisor;
  }

  child(name: string): Cell | undefined {
    return this.children.get(name)?.cell;
  }

  override get childCount(): number {
    return this.children.size;
  }

  /** Stops a child for good and forgets it, including one that was given up. */
  release(name: string): void {
    const entry = this.children.get(name);
    if (!entry) return;
    this.children.delete(name);
    this.ledgers.delete(name);
    entry.cell.stop();
    entry.cell.forget();
  }

  childCells(): Iterable<Cell> {
    const cells: Cell[] = [];
    for (const entry of this.children.values()) cells.push(entry.cell);
    return cells;
  }

  views(): Iterable<Inspectable> {
    return this.spec.views?.(this) ?? [];
  }

  childCrashed(child: Cell, error: unknown): CrashDecision {
    const now = this.env.clock.now();
    const outcome = decideOnCrash({
      policy: this.spec.policy,
      restartType: child.restartType,
      child: this.ledgers.get(child.name) ?? newLedger(now),
      supervisorRestarts: this.supervisorRestarts,
      now,
      random: this.env.random,
    });
    this.ledgers.set(child.name, outcome.child);
    this.supervisorRestarts = outcome.supervisorRestarts;
    const decision = outcome.decision;
    this.env.logger.warn('child crashed', { path: child.path, error: describeError(error), decision: decision.action });
    this.recordCrash(child, error, decision, now);
    if (decision.action === 'restart' && decision.siblings) {
      for (const entry of this.children.values()) if (entry.cell !== child) entry.cell.restartWithSibling();
    }
    if (decision.action === 'escalate') {
      this.env.countSupervision('escalation', this.kind);
      // OTP: stop every child now, then fail to our own parent with the reason.
      for (const entry of [...this.children.values()]) if (entry.cell !== child) entry.cell.stop();
      this.crash(new EscalatedFailure(this.path, decision.reason, error));
    }
    return decision;
  }

  /** The history of a crash, in the child's ring and in this supervisor's own; counted for /metrics. */
  private recordCrash(child: Cell, error: unknown, decision: CrashDecision, at: number): void {
    const classified = classify(error);
    child.recordSupervision({ type: 'crashed', at, error: classified });
    const outcome: SupervisionEvent = decision.action === 'restart'
      ? { type: 'restart-scheduled', at, delayMs: decision.delayMs }
      : decision.action === 'give-up' ? { type: 'given-up', at, reason: decision.reason } : { type: 'escalated', at, reason: decision.reason };
    child.recordSupervision(outcome);
    this.recordSupervision({ type: 'child-crashed', at, child: child.name, error: classified, decision: decision.action });
    if (decision.action === 'escalate') this.recordSupervision({ type: 'escalated', at, reason: decision.reason });
    if (decision.action === 'restart') this.env.countSupervision('restart', child.kind);
  }

  childBudget(child: Cell): RestartBudget | undefined {
    const intensity = this.spec.policy.childIntensity;
    const ledger = this.ledgers.get(child.name);
    if (child.restartType === 'temporary') return { crashesLeft: 0, withinMs: null };
    return { crashesLeft: crashesLeft(ledger?.restartTimes ?? [], intensity, this.env.clock.now()), withinMs: intensity?.withinMs ?? null };
  }

  protected override historyCapacity(): number {
    return SUPERVISOR_HISTORY;
  }

  override detail(): ActorDetail {
    const intensity = this.spec.policy.intensity;
    const escalation = { crashesLeft: crashesLeft(this.supervisorRestarts, intensity, this.env.clock.now()), withinMs: intensity?.withinMs ?? null };
    return { ...super.detail(), escalation };
  }

  childGaveUp(child: Cell, reason: string, error: unknown): void {
    this.env.logger.error('child given up', { path: child.path, reason, error: describeError(error) });
    this.env.countSupervision('give-up', child.kind);
    const hook = this.children.get(child.name)?.options.onGiveUp;
    if (!hook) return;
    try {
      hook(reason, error);
    } catch (hookError) {
      this.env.logger.error('give-up hook failed', { path: child.path, error: describeError(hookError) });
    }
  }

  childExited(child: Cell): void {
    const entry = this.children.get(child.name);
    if (!entry || entry.cell !== child) return;
    child.stop();
    if (restartsAfterNormalExit(child.restartType) && !this.stopped) {
      this.children.set(child.name, { ...entry, cell: this.startChild(entry.respawn) });
    }
  }

  childStopped(child: Cell): void {
    const entry = this.children.get(child.name);
    if (entry && entry.cell === child) {
      this.children.delete(child.name);
      this.ledgers.delete(child.name);
    }
  }

  protected beginIncarnation(): true {
    // A (re)started supervisor begins with no children: nact's reset has stopped the old ones.
    for (const entry of [...this.children.values()]) {
      entry.cell.markStopped();
      entry.cell.forget();
    }
    this.children.clear();
    this.ledgers.clear();
    this.supervisorRestarts = [];
    return true;
  }

  protected endIncarnation(): void {
    // Supervisors hold no timers of their own; their children end with them.
  }

  /** A supervisor's first start is synchronous, so its standing children exist once it returns. */
  override spawnUnder(parentRef: EngineRef): void {
    super.spawnUnder(parentRef);
    this.start();
  }

  private start(): void {
    if (this.status === 'running' || this.stopped) return;
    this.status = 'running';
    this.recordSupervision({ type: 'started', at: this.env.clock.now() });
    this.spec.onStart?.(this);
  }

  protected handleEnvelope(incarnation: true, envelope: Envelope<never>): true {
    switch (envelope.k) {
      case 'start':
        this.start();
        break;
      case 'msg':
        break;
      case 'crash':
        throw envelope.error;
      case 'restart':
        throw new SiblingRestart();
    }
    return incarnation;
  }

  protected summary(): StateSummary | null {
    return this.spec.summarize ? this.spec.summarize() : { strategy: this.spec.policy.strategy, children: this.children.size };
  }

  /** The engine reference children are spawned under. */
  get engine(): EngineRef {
    if (!this.engineRef) throw new Error(`${this.path}: supervisor has not started`);
    return this.engineRef;
  }

  private adopt(name: string, make: () => Cell, options: ChildOptions): Cell {
    if (this.stopped) throw new Error(`${this.path}: cannot spawn ${name}, the supervisor has stopped`);
    const existing = this.children.get(name);
    if (existing) throw new Error(`${this.path}: a child named ${name} already exists`);
    const cell = this.startChild(make);
    this.children.set(name, { cell, options, respawn: make });
    return cell;
  }

  private startChild(make: () => Cell): Cell {
    const cell = make();
    this.ledgers.set(cell.name, newLedger(this.env.clock.now()));
    cell.spawnUnder(this.engine);
    return cell;
  }
}
