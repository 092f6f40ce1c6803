import type { Timer } from '../lib/clock.js';
import type { RestartType } from './supervision.js';
import type { ActorBehavior, ActorRef, EffectContext, StateSummary, Transition } from './behavior.js';
import { Cell, type CellEnvironment, type Envelope, type ParentSupervisor, SiblingRestart } from './cell.js';

interface Incarnation<S> {
  state: S;
  started: boolean;
  readonly controller: AbortController;
  /** Timers still pending; made at the first one (most actors idle with none). */
  timers: Set<Timer> | undefined;
}

/** A worker actor: runs an `ActorBehavior`, one message at a time, with its effects detached. */
export class WorkerCell<S, M, E> extends Cell<M, Incarnation<S>> implements ActorRef<M> {
  private current: Incarnation<S> | undefined;

  constructor(
    env: CellEnvironment,
    parent: ParentSupervisor,
    name: string,
    private readonly behavior: ActorBehavior<S, M, E>,
    restartType: RestartType,
  ) {
    super(env, parent, name, behavior.kind, restartType);
  }

  tell(msg: M): void {
    this.deliver({ k: 'msg', msg });
  }

  /** The current state, for tests and introspection; undefined before the first start. */
  get state(): S | undefined {
    return this.current?.state;
  }

  childCells(): Iterable<Cell> {
    return [];
  }

  override get childCount(): number {
    return 0;
  }

  protected beginIncarnation(): Incarnation<S> {
    this.current = { state: this.behavior.initialState(), started: false, controller: new AbortController(), timers: undefined };
    return this.current;
  }

  protected endIncarnation(): void {
    const inc = this.current;
    if (!inc) return;
    inc.controller.abort(new Error(`${this.path}: incarnation ended`));
    for (const timer of inc.timers ?? []) timer.cancel();
    inc.timers = undefined;
  }

  protected handleEnvelope(inc: Incarnation<S>, envelope: Envelope<M>): Incarnation<S> {
    if (!inc.started) {
      inc.started = true;
      this.status = 'running';
      if (this.behavior.onStart) this.apply(inc, this.behavior.onStart(inc.state, this.env.clock.now()));
    }
    switch (envelope.k) {
      case 'start':
        break;
      case 'msg':
        // An effect's report is for the incarnation that ran the effect (it may have been queued before a crash).
        if (envelope.from !== undefined && envelope.from !== inc) break;
        this.env.registry.trace.record(this.env.clock.now(), this.path, 'message', envelope.msg);
        if (!inc.controller.signal.aborted) this.apply(inc, this.behavior.decide(inc.state, envelope.msg, this.env.clock.now()));
        break;
      case 'crash':
        throw envelope.error;
      case 'restart':
        throw new SiblingRestart();
    }
    return inc;
  }

  protected summary(): StateSummary | null {
    const state = this.current?.state;
    return state !== undefined && this.behavior.summarize ? this.behavior.summarize(state) : null;
  }

  private apply(inc: Incarnation<S>, transition: Transition<S, E>): void {
    inc.state = transition.state;
    if (transition.stop) {
      this.exitNormally();
      return;
    }
    for (const effect of transition.effects ?? []) this.run(inc, effect);
  }

  private run(inc: Incarnation<S>, effect: E): void {
    this.env.registry.trace.record(this.env.clock.now(), this.path, 'effect', effect);
    const ctx = this.effectContext(inc);
    const fail = (error: unknown): void => {
      if (!inc.controller.signal.aborted) this.crash(error);
    };
    try {
      const done = this.behavior.perform(effect, ctx);
      if (done) done.catch(fail);
    } catch (error) {
      fail(error);
    }
  }

  /**
   * What an effect sees. Its `self` is fenced to this incarnation: once the incarnation has ended a
   * report is dropped, and one already queued is dropped by a later incarnation (handleEnvelope),
   * so no effect can deliver a stale answer into a restarted actor, whether or not it checks its signal.
   */
  private effectContext(inc: Incarnation<S>): EffectContext<M> {
    const self: ActorRef<M> = {
      path: this.path,
      tell: (msg) => {
        if (inc.controller.signal.aborted) return;
        this.deliver({ k: 'msg', msg, from: inc });
      },
    };
    return {
      self,
      clock: this.env.clock,
      signal: inc.controller.signal,
      schedule: (ms, msg) => {
        if (inc.controller.signal.aborted) return;
        const timer = this.env.clock.setTimer(ms, () => {
          inc.timers?.delete(timer);
          if (inc.timers?.size === 0) inc.timers = undefined;
          if (!inc.controller.signal.aborted) this.deliver({ k: 'msg', msg, from: inc });
        });
        (inc.timers ??= new Set()).add(timer);
      },
    };
  }

  private exitNormally(): void {
    this.status = 'stopping';
    this.endIncarnation();
    this.parent?.childExited(this);
  }
}
