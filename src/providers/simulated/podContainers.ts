/**
 * The containers of one running simulated pod, as the kubelet's sync loop drives them: the
 * regular init containers one at a time (each must exit 0 before the next starts), sidecars
 * (init containers with restartPolicy Always) started in their turn and kept running, then the
 * main containers; an exit restarts the container as the restart policy says, paced by the
 * kubelet's back-off (crashLoopBackOff.ts); a graceful stop sends every running instance TERM.
 * Each instance (containerRuntime.ts) reports its exit back here; `changed` is told once per batch
 * of changes. Faults the pod asks for in its spec (dataFaults.ts) happen here too. Probes
 * (probes/podProbes.ts) start with each main or sidecar instance; their health goes into the status,
 * and a liveness or startup failure kills the instance as a failed postStart hook does (`kill`). A
 * start failure (StartError) shows RunContainerError until the next sync, then the back-off path.
 */
import type { Timer } from '../../lib/clock.js';
import type { PodSpec, PodStatus } from '../../adapters/kubernetes/model.js';
import { deepCopyPod } from '../deepCopy.js';
import { podIdentity } from '../provider.js';
import { expandedCommand } from './commandExpansion.js';
import { CONTAINER_BACKOFF, crashLoopMessage, nextEntry, restartDecision } from './crashLoopBackOff.js';
import { ContainerLog } from './containerLog.js';
import { PodVolumes } from './containerFiles.js';
import { ContainerInstance, type InstanceExit, type InstanceOwner } from './containerRuntime.js';
import { finalStage, podStatusOf, type ContainerFacts, type Terminated } from './containerStatuses.js';
import { containerView, EMPTY_VIEW, MissingReference, withoutObjectReferences, type ContainerView } from './containerView.js';
import { emptyConfigSource } from './configSource.js';
import { imageFault } from './dataFaults.js';
import { containerProgram, type ContainerProgram } from './imageCommands.js';
import { simulatedContainerID, type Placement } from './podLifecycle.js';
import { isSidecar, podRestartPolicy, restartsAfterExit, shouldRestart } from './restartPolicy.js';
import { definedOnly } from '../../lib/defaults.js';
import { MemoryFileSystem } from './shell/fileSystem.js';
import { containerRecord, leaveTerminated, notePostStartOver, postStartOver, type ContainerRecord, type InstanceLog } from './containerRecord.js';
import type { ContainersOwner, PodContainersOptions } from './podContainersOptions.js';
import { podHasProbes, type PodProbes } from './probes/podProbes.js';
import { runtimeProbes } from './probes/runtimeProbes.js';

type Container = PodSpec['containers'][number];

const PULL_BACKOFF_AFTER_MS = 1000;
/** Only a shell program reads or writes files: the others share one empty set (memory per idle pod). */
const NO_FILES = new MemoryFileSystem();
/** PLEG's relist period: the sync after a start failure, which replaces RunContainerError. */
const START_ERROR_SYNC_MS = 1000;
/** For a pod without init containers (most), one empty list for all. */
const NO_RECORDS: readonly ContainerRecord[] = Object.freeze([]);

export class PodContainers<O extends ContainersOwner> implements InstanceOwner {
  private readonly inits: readonly ContainerRecord[];
  private readonly mains: readonly ContainerRecord[];
  /** Made at the first emptyDir mount (most pods never mount one): `volumes`. */
  private podVolumes: PodVolumes | undefined;
  private initialized = false;
  private stopping = false;
  private batching = 0;
  private dirty = false;
  private exitAfter: Timer | undefined;
  private readonly exitAfterMs: number | undefined;
  /** Only for a pod with probes: the others cost nothing. */
  private readonly probes: PodProbes | undefined;

  constructor(private readonly options: PodContainersOptions<O>, private readonly owner: O) {
    this.exitAfterMs = options.exitAfterMs?.(owner.pod);
    this.probes = podHasProbes(owner.pod) ? runtimeProbes({
      clock: options.clock,
      pod: () => owner.pod,
      runExec: (...exec) => options.runExec?.(owner, ...exec) ?? Promise.reject(new Error('exec probes are not run on this node')),
      event: (...args) => options.event?.(owner, ...args),
      // A sidecar's startup probe passing lets the containers after it start.
      changed: () => this.batch(() => {
        this.dirty = true;
        this.advance();
      }),
      running: (name) => !this.stopping && this.probed(name)?.probeKilled === false && this.probed(name)?.instance?.running === true,
      kill: (name, gracePeriodMs) => this.kill(name, gracePeriodMs),
    }) : undefined;
    const spec = owner.pod.spec;
    this.inits = spec?.initContainers?.length ? spec.initContainers.map((c) => containerRecord(c, isSidecar(c) ? 'sidecar' : 'init')) : NO_RECORDS;
    this.mains = (spec?.containers ?? []).map((c) => containerRecord(c, 'main'));
  }

  /** The pod's emptyDir volumes, kept across its containers' restarts. */
  get volumes(): PodVolumes { return (this.podVolumes ??= new PodVolumes()); }

  /** The sandbox is up: start the first containers. */
  start(): void {
    this.batch(() => this.advance());
  }

  /** Whether anything still runs. */
  get running(): boolean {
    return this.all().some((r) => r.instance?.running === true);
  }

  /** Graceful stop: no more restarts; TERM to every running instance, killed at `deadline`. */
  stop(deadline: number, latencyMs: number): void {
    this.batch(() => {
      this.stopping = true;
      this.exitAfter?.cancel();
      // Readiness goes on while the containers drain (a trap may turn it off); the others stop.
      this.probes?.terminating();
      for (const r of this.all()) {
        r.timer?.cancel();
        r.timer = undefined;
        r.instance?.stop(deadline, latencyMs);
      }
    });
  }

  /** Forgets every instance and timer without exits. */
  cancel(): void {
    this.stopping = true;
    this.exitAfter?.cancel();
    this.probes?.stopAll();
    for (const r of this.all()) {
      r.timer?.cancel();
      r.instance?.cancel();
    }
  }

  /** The kubelet's kill of a main container or sidecar (a failed probe or postStart hook): TERM, KILL at the grace. */
  kill(name: string, gracePeriodMs: number): void {
    const m = this.probed(name);
    if (m?.instance === undefined || m.probeKilled) return;
    m.probeKilled = true; // as the sidecars' stop: a script without a TERM trap takes TERM's default action at once
    this.batch(() => m.instance?.stop(this.options.clock.now() + gracePeriodMs, 0));
  }

  /** Tether ran the postStart hook of the sidecar's instance `containerID`: what follows may start. */
  postStartDone(name: string, containerID: string): void {
    const r = this.inits.find((c) => c.name === name && c.role === 'sidecar');
    if (r !== undefined && notePostStartOver(r, containerID)) this.batch(() => this.advance());
  }

  /** A changed image: a running container ends (0) and starts again with it at once. */
  replaceImage(name: string, image: string): void {
    const r = this.mains.find((m) => m.name === name);
    if (r === undefined || r.image === image) return;
    this.batch(() => {
      r.image = image;
      if (r.instance?.running !== true) return;
      r.replacing = true;
      r.instance.exit(0, 'Completed');
    });
  }

  /** The status the containers add up to; `terminal` once deleted and every container ended. */
  status(placement: Placement, previous: PodStatus | undefined, terminal: boolean): PodStatus {
    const facts = (r: ContainerRecord): ContainerFacts => {
      const stage = terminal && r.stage.kind === 'waiting' ? finalStage(r.last, this.options.clock.now()) : r.stage;
      const health = stage.kind === 'running' ? this.probes?.health(r.name) : undefined;
      // Waiting to start again after a probe kill, whatever it exited with: the phase must not count it as done.
      const restarting = stage.kind === 'waiting' && r.probeKilled ? true : undefined;
      return { name: r.name, image: r.image, role: r.role, stage, restartCount: r.restartCount, ...definedOnly({ containerID: r.containerID, last: stage === r.stage ? r.last : undefined, health, restarting }) };
    };
    return podStatusOf(this.owner.pod, placement, previous, {
      inits: this.inits.map(facts), mains: this.mains.map(facts), initialized: this.initialized, terminal,
    }, new Date(this.options.clock.now()));
  }

  /** The log of a container's current (or last) instance, or of the one before it. */
  logOf(name: string, previous: boolean): InstanceLog | undefined {
    const r = this.all().find((c) => c.name === name);
    return previous ? r?.previous : r?.current;
  }

  /** The env and files a running instance of `name` started with (what its exec probes see). */
  launchedView(name: string): ContainerView | undefined {
    const instance = this.all().find((c) => c.name === name)?.instance;
    return instance?.running ? instance.view : undefined;
  }

  /** A main container or sidecar by name: the ones with probes. */
  private probed(name: string): ContainerRecord | undefined {
    return this.all().find((r) => r.name === name && r.role !== 'init');
  }

  private all(): ContainerRecord[] {
    return [...this.inits, ...this.mains];
  }

  private batch(change: () => void): void {
    this.batching++;
    try {
      change();
    } finally {
      this.batching--;
      if (this.batching === 0 && this.dirty) {
        this.dirty = false;
        this.options.changed(this.owner, this);
      }
    }
  }

  /** The next containers to start, in the kubelet's order. */
  private advance(): void {
    if (this.stopping) return;
    for (const r of this.inits) {
      if (r.role === 'sidecar') {
        if (r.current === undefined && r.stage.kind === 'waiting' && r.timer === undefined) this.launch(r);
        // The next one starts once the sidecar has started (startup probe passed, postStart hook over).
        if (r.stage.kind !== 'running' || this.probes?.health(r.name)?.started === false || !postStartOver(r, this.spec(r.name))) return;
        continue;
      }
      if (r.stage.kind === 'terminated' && r.stage.terminated.exitCode === 0) continue;
      if (r.current === undefined && r.timer === undefined && r.stage.kind === 'waiting') this.launch(r);
      return;
    }
    if (!this.initialized) {
      this.initialized = true;
      this.dirty = true;
    }
    let launched = false;
    for (const r of this.mains) {
      if (r.current !== undefined || r.timer !== undefined) continue;
      this.launch(r);
      launched = true;
    }
    if (launched) this.armExitAfter();
    this.stopSidecarsWhenDone();
  }

  private spec(name: string): Container | undefined {
    return [...(this.owner.pod.spec?.initContainers ?? []), ...(this.owner.pod.spec?.containers ?? [])].find((c) => c.name === name);
  }

  /** Pulls the image (or fails to), then creates and starts an instance. */
  private launch(r: ContainerRecord): void {
    const container = this.spec(r.name);
    if (container === undefined) return;
    const pod = this.owner.pod;
    const fault = imageFault(pod, r.image);
    if (fault.kind === 'pullFails') {
      this.pullFailed(r, fault.message);
      return;
    }
    const program = containerProgram(container, definedOnly({ command: container.command, args: container.args }), r.role === 'init', this.options.imageCommands);
    if (program.kind !== 'shell') {
      this.run(r, container, program, EMPTY_VIEW);
      return;
    }
    // A command needs the container's env and files first (it may be $(VAR)-expanded).
    leaveTerminated(r);
    r.stage = { kind: 'waiting', reason: 'ContainerCreating' };
    this.dirty = true;
    // Stands for the view being read: no other launch meanwhile, and a stop or restart voids it.
    const attempt: Timer = { cancel: () => undefined };
    r.timer = attempt;
    const source = this.options.configSource;
    const viewed = source === undefined ? containerView(withoutObjectReferences(deepCopyPod(pod)), r.name, emptyConfigSource) : containerView(deepCopyPod(pod), r.name, source);
    void viewed.then(
      (view) => this.batch(() => {
        if (r.timer !== attempt || this.stopping) return;
        r.timer = undefined;
        const words = expandedCommand(container, view.env);
        this.run(r, container, containerProgram(container, words, r.role === 'init', this.options.imageCommands), view);
        // A sidecar that runs lets the containers after it start.
        if (r.role === 'sidecar') this.advance();
      }),
      (error: unknown) => this.batch(() => {
        if (r.timer !== attempt || this.stopping) return;
        r.timer = this.options.clock.setTimer(CONTAINER_BACKOFF.minMs, () => this.batch(() => {
          r.timer = undefined;
          this.launch(r);
        }));
        const message = error instanceof MissingReference ? error.message : String(error);
        r.stage = { kind: 'waiting', reason: 'CreateContainerConfigError', message };
        this.dirty = true;
      }),
    );
  }

  private run(r: ContainerRecord, container: Container, program: ContainerProgram, view: ContainerView): void {
    const { clock } = this.options;
    const now = clock.now();
    if (r.current !== undefined) {
      r.previous = r.current;
      r.restartCount++;
    }
    const { uid } = podIdentity(this.owner.pod);
    r.containerID = simulatedContainerID(uid ?? '', r.name, r.restartCount);
    leaveTerminated(r);
    // Only a program that writes has a log of its own; the others' is the synthetic lines.
    const log = program.kind === 'shell' || (program.kind === 'server' && program.note !== undefined) ? new ContainerLog(() => clock.now()) : undefined;
    r.current = log !== undefined ? { kind: 'recorded', log } : { kind: 'synthetic', startedAt: now, endedAt: undefined };
    const instance = new ContainerInstance({
      clock, container, program,
      view, files: program.kind === 'shell' ? this.volumes.fileSystem(this.owner.pod, container, view) : NO_FILES,
      ...definedOnly({ log, runShell: this.options.runShell }),
      startedAt: now, owner: this,
    });
    r.instance = instance;
    r.probeKilled = false;
    r.stage = { kind: 'running', startedAt: now };
    this.dirty = true;
    const fault = imageFault(this.owner.pod, r.image);
    if (fault.kind === 'oom') r.timer = clock.setTimer(fault.afterMs, () => instance.exit(137, 'OOMKilled'));
    if (r.role !== 'init') this.probes?.startContainer(r.name, now);
    instance.start();
  }

  /** An instance's exit, reported once: the container it runs for (if it is still the current one) moves on. */
  instanceExited(instance: ContainerInstance, exit: InstanceExit): void {
    const r = this.all().find((c) => c.instance === instance);
    if (r !== undefined) this.batch(() => this.exited(r, instance, instance.startedAt, exit));
  }

  private exited(r: ContainerRecord, instance: ContainerInstance, startedAt: number, exit: InstanceExit): void {
    if (r.instance !== instance) return;
    const now = this.options.clock.now();
    r.instance = undefined;
    this.probes?.stopContainer(r.name);
    r.timer?.cancel();
    r.timer = undefined;
    if (r.current?.kind === 'synthetic') r.current.endedAt = now;
    const terminated: Terminated = { exitCode: exit.exitCode, reason: exit.reason, startedAt, finishedAt: now, containerID: r.containerID ?? '', ...definedOnly({ message: exit.message }) };
    r.stage = { kind: 'terminated', terminated };
    this.dirty = true;
    if (this.stopping) return;
    if (r.replacing) {
      r.replacing = false;
      this.launch(r);
      return;
    }
    const restarts = restartsAfterExit(r.role, podRestartPolicy(this.owner.pod.spec), exit.exitCode, r.probeKilled ? 'probeKilled' : 'exited');
    if (exit.reason === 'StartError') this.startFailed(r, exit.message ?? '', restarts ? now : undefined);
    else if (restarts) this.restart(r, now);
    this.advance();
  }

  /** kuberuntime's startContainer: a Failed Event; while it will restart, RunContainerError until the next sync. */
  private startFailed(r: ContainerRecord, message: string, restartAfter: number | undefined): void {
    this.options.event?.(this.owner, 'Warning', 'Failed', `Error: ${message}`, { fieldPath: `spec.${r.role === 'main' ? 'containers' : 'initContainers'}{${r.name}}`, action: 'Start' });
    if (restartAfter === undefined) return;
    leaveTerminated(r);
    r.stage = { kind: 'waiting', reason: 'RunContainerError', message };
    r.timer = this.options.clock.setTimer(START_ERROR_SYNC_MS, () => this.batch(() => {
      r.timer = undefined;
      this.restart(r, restartAfter);
    }));
  }

  /** Restarts now, or waits out the back-off in CrashLoopBackOff and decides again then. */
  private restart(r: ContainerRecord, finishedAt: number): void {
    const decision = restartDecision(CONTAINER_BACKOFF, r.backoff, finishedAt, this.options.clock.now());
    if (decision.type === 'start') {
      r.backoff = decision.entry;
      this.launch(r);
      return;
    }
    const { name, namespace, uid } = podIdentity(this.owner.pod);
    leaveTerminated(r);
    r.stage = { kind: 'waiting', reason: 'CrashLoopBackOff', message: crashLoopMessage(decision.delayMs, r.name, { name, namespace, uid: uid ?? '' }) };
    this.dirty = true;
    r.timer = this.options.clock.setTimer(decision.until - this.options.clock.now(), () => this.batch(() => {
      r.timer = undefined;
      this.restart(r, finishedAt);
    }));
  }

  /** ErrImagePull now, ImagePullBackOff a moment later, another pull when the back-off has passed. */
  private pullFailed(r: ContainerRecord, message: string): void {
    const { clock } = this.options;
    const now = clock.now();
    const entry = (r.backoff = nextEntry(CONTAINER_BACKOFF, r.backoff, now, now));
    leaveTerminated(r);
    r.stage = { kind: 'waiting', reason: 'ErrImagePull', message };
    this.dirty = true;
    r.timer = clock.setTimer(PULL_BACKOFF_AFTER_MS, () => this.batch(() => {
      r.stage = { kind: 'waiting', reason: 'ImagePullBackOff', message: `Back-off pulling image ${JSON.stringify(r.image)}: ErrImagePull: ${message}` };
      this.dirty = true;
      r.timer = clock.setTimer(Math.max(0, entry.delayMs - PULL_BACKOFF_AFTER_MS), () => this.batch(() => {
        r.timer = undefined;
        this.launch(r);
      }));
    }));
  }

  /** A pod whose main containers are all done for good stops its sidecars, as the kubelet does. */
  private stopSidecarsWhenDone(): void {
    const policy = podRestartPolicy(this.owner.pod.spec);
    const done = this.mains.every((m) => m.stage.kind === 'terminated' && !shouldRestart(policy, m.stage.terminated.exitCode));
    if (!done) return;
    this.stopping = true;
    const now = this.options.clock.now();
    const grace = (this.owner.pod.spec?.terminationGracePeriodSeconds ?? 30) * 1000;
    for (const s of this.inits) {
      s.timer?.cancel();
      s.timer = undefined;
      s.instance?.stop(now + grace, 0);
    }
  }

  private armExitAfter(): void {
    const after = this.exitAfterMs;
    if (after === undefined || this.exitAfter !== undefined || podRestartPolicy(this.owner.pod.spec) === 'Always') return;
    this.exitAfter = this.options.clock.setTimer(after, () => this.batch(() => {
      for (const r of this.mains) if (r.current?.kind === 'synthetic') r.instance?.exit(0, 'Completed');
    }));
  }
}
