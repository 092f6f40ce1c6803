import type { Clock } from '../lib/clock.js';
import { systemClock } from '../adapters/clock.js';
import { jsonLogger, type Logger } from '../adapters/logger.js';
import { rootRestartPolicy, type RestartPolicy } from './restartPolicy.js';
import { Supervisor } from './supervisor.js';
import { ActorRegistry, type ActorSnapshot, type SnapshotQuery } from '../runtime/actorRegistry.js';
import type { CellEnvironment } from '../runtime/cell.js';
import { startEngine, stopEngine, type EngineRef } from '../runtime/nactEngine.js';
import { DEFAULT_LOOP_SLICE_MS, LoopSlice, type LoopSliceOptions } from '../runtime/loopSlice.js';
import { definedOnly } from '../lib/defaults.js';

export interface ActorSystemOptions {
  readonly name?: string;
  readonly clock?: Clock;
  readonly logger?: Logger;
  readonly random?: () => number;
  readonly rootPolicy?: RestartPolicy;
  /** Called when the root fails; the default logs and exits the process with code 1. */
  readonly onFatal?: (error: unknown) => void;
  /**
   * The longest stretch of back-to-back actor messages before timers get a loop turn
   * (runtime/loopSlice.ts); default DEFAULT_LOOP_SLICE_MS (10 ms), `false`: unbounded.
   */
  readonly loopSlice?: LoopSliceOptions | false;
}

let systems = 0;

/**
 * The actor system: a nact engine, a root supervisor, and the registry behind the live actor tree.
 */
export class ActorSystem {
  readonly registry = new ActorRegistry();
  readonly root: Supervisor;
  readonly clock: Clock;
  readonly logger: Logger;
  private deadLetterCount = 0;
  private readonly supervision = { escalations: 0, givenUp: 0 };
  private readonly restarts = new Map<string, number>();
  private readonly engine: EngineRef;
  private stopped = false;
  /** The loop slice every actor of this system shares (none when disabled). */
  readonly slice: LoopSlice | undefined;

  constructor(options: ActorSystemOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? jsonLogger();
    const name = options.name ?? 'tether';
    this.slice = options.loopSlice === false ? undefined : new LoopSlice(options.loopSlice ?? { budgetMs: DEFAULT_LOOP_SLICE_MS });
    const onFatal =
      options.onFatal ??
      ((error: unknown): void => {
        this.logger.error('fatal: the actor system cannot continue', { error });
        process.exitCode = 1;
        this.stop();
      });
    const env: CellEnvironment = {
      registry: this.registry,
      clock: this.clock,
      logger: this.logger,
      random: options.random ?? Math.random,
      ...definedOnly({ slice: this.slice }),
      onFatal,
      countDeadLetter: () => {
        this.deadLetterCount++;
      },
      countSupervision: (outcome, kind) => {
        if (outcome === 'restart') this.restarts.set(kind, (this.restarts.get(kind) ?? 0) + 1);
        else if (outcome === 'escalation') this.supervision.escalations++;
        else this.supervision.givenUp++;
      },
    };
    // nact keys systems by name process-wide; a suffix keeps test systems apart.
    this.engine = startEngine(`${name}-${++systems}`);
    this.root = new Supervisor(env, null, name, { kind: 'root', policy: options.rootPolicy ?? rootRestartPolicy }, 'permanent');
    this.root.spawnUnder(this.engine);
  }

  /** Messages sent to actors that had already stopped. */
  get deadLetters(): number {
    return this.deadLetterCount;
  }

  /** Since start: supervisors that escalated, and children given up after their restart budget. */
  get supervisionEvents(): Readonly<{ escalations: number; givenUp: number }> {
    return { ...this.supervision };
  }

  /** Since start: restarts decided by a supervisor, by the restarted actor's kind (role). */
  get restartsByKind(): ReadonlyMap<string, number> {
    return new Map(this.restarts);
  }

  snapshot(query?: SnapshotQuery): ActorSnapshot[] {
    return this.registry.snapshot(query);
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.root.stop();
    stopEngine(this.engine);
  }
}
