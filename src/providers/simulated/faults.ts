/**
 * Failure injection for the simulated provider. Every knob can be changed while it runs, so a
 * test or the harness can make a healthy node misbehave and recover.
 */
import type { Pod } from '../../adapters/kubernetes/model.js';
import { invalidInput, transient } from '../errors.js';

export interface SimulatedFaultOptions {
  /** Probability (0..1) that a createPod fails transiently. Default 0. */
  readonly createErrorRate?: number;
  /** "namespace/name" keys whose createPod fails transiently until removed. */
  readonly failCreateFor?: Iterable<string>;
  /** A reason to reject the pod as invalid input (e.g. an image pattern), or undefined to accept it. */
  readonly rejectInvalid?: (pod: Pod) => string | undefined;
  /** Whether ping rejects. Default false. */
  readonly pingFailing?: boolean;
  /** The random source for createErrorRate, in [0, 1). Default Math.random. */
  readonly random?: () => number;
}

export class SimulatedFaults {
  private createErrorRate: number;
  private readonly failCreateFor: Set<string>;
  private rejectInvalid: ((pod: Pod) => string | undefined) | undefined;
  private pingFailing: boolean;
  private readonly crashes = new Set<string>();
  private readonly random: () => number;

  constructor(options: SimulatedFaultOptions = {}) {
    this.createErrorRate = options.createErrorRate ?? 0;
    this.failCreateFor = new Set(options.failCreateFor ?? []);
    this.rejectInvalid = options.rejectInvalid;
    this.pingFailing = options.pingFailing ?? false;
    this.random = options.random ?? Math.random;
  }

  setCreateErrorRate(rate: number): void {
    if (!(rate >= 0 && rate <= 1)) throw invalidInput(`createErrorRate must be within 0..1, got ${rate}`);
    this.createErrorRate = rate;
  }

  /** Makes createPod of "namespace/name" fail transiently (`failing` true) or succeed again. */
  failCreate(key: string, failing = true): void {
    if (failing) this.failCreateFor.add(key);
    else this.failCreateFor.delete(key);
  }

  setRejectInvalid(rule: ((pod: Pod) => string | undefined) | undefined): void {
    this.rejectInvalid = rule;
  }

  setPingFailing(failing: boolean): void {
    this.pingFailing = failing;
  }

  /** The next provider call about "namespace/name" throws an unclassified Error (a crash). */
  crashOnce(key: string): void {
    this.crashes.add(key);
  }

  /** Throws the pending crash for `key`, if any, consuming it. */
  takeCrash(key: string, operation: string): void {
    if (this.crashes.delete(key)) throw new Error(`simulated crash in ${operation} of ${key}`);
  }

  /** Throws the injected failure for this createPod, if any: invalid input first, then transient ones. */
  checkCreate(key: string, pod: Pod): void {
    const invalid = this.rejectInvalid?.(pod);
    if (invalid !== undefined) throw invalidInput(invalid);
    if (this.failCreateFor.has(key)) throw transient(`simulated create failure for ${key}`);
    if (this.createErrorRate > 0 && this.random() < this.createErrorRate) {
      throw transient(`simulated random create failure for ${key}`);
    }
  }

  checkPing(): void {
    if (this.pingFailing) throw transient('simulated provider is unhealthy: ping failures are injected');
  }
}
