/**
 * The simulated node's container sessions: logs (what a command wrote, or a server's synthetic lines), exec through the built-in shell
 * (builtinShell.ts) against the container's env and volume files, attach to the main process's
 * log lines, port-forward to a small HTTP responder on declared ports, and the exec and httpGet
 * lifecycle hooks the pod actor hands it (the built-in shell; the responder on declared ports).
 */
import { sleep, type Clock } from '../../lib/clock.js';
import { deepCopyPod } from '../deepCopy.js';
import { invalidInput, notFound, transient } from '../errors.js';
import { podKey } from '../../lib/podIdentity.js';
import type { LifecycleHookName, ContainerLogOptions, ContainerRef, ContainerStreams, PortConnection, TerminalSize } from '../provider.js';
import { BuiltinShell } from './builtinShell.js';
import { emptyConfigSource, type ConfigSource } from './configSource.js';
import { containerView, MissingReference, type ContainerView } from './containerView.js';
import type { ShellFileSystem } from './shell/fileSystem.js';
import type { SimulatedFaults } from './faults.js';
import { servePortConnection } from './portResponder.js';
import type { SimPod, SimulatedPods } from './simulatedPods.js';
import { syntheticLogs, type LogSource } from './syntheticLogs.js';
import { recordedLogs } from './recordedLogs.js';
import { definedOnly } from '../../lib/defaults.js';
import { podIdentity } from '../provider.js';
import type { ExecResult } from './probes/containerProbes.js';
import { longRunningContainers } from './restartPolicy.js';

/**
 * What an ephemeral container runs, as attach reaches it: its `command` and `args`, else `sh`, the
 * default command of the debug images (busybox, alpine). It is not kept between attaches: each
 * attach runs it afresh, and its exit does not end the container (it ends with the pod).
 */
function debugProgram(container: { readonly command?: readonly string[]; readonly args?: readonly string[] }): readonly string[] {
  const argv = [...(container.command ?? []), ...(container.args ?? [])];
  return argv.length > 0 ? argv : ['sh'];
}

/** What the kubelet keeps of an exec probe's output (prober's maxReadLength, 10 KiB). */
const PROBE_OUTPUT_LIMIT = 10 * 1024;

export interface SimulatedSessionsDeps {
  readonly pods: SimulatedPods;
  readonly faults: SimulatedFaults;
  readonly clock: Clock;
  readonly logIntervalMs: number;
  readonly configSource?: ConfigSource;
}

export class SimulatedSessions {
  private readonly faults: SimulatedFaults;
  private readonly clock: Clock;

  constructor(private readonly deps: SimulatedSessionsDeps) {
    this.faults = deps.faults;
    this.clock = deps.clock;
  }

  async getContainerLogs(
    namespace: string,
    podName: string,
    containerName: string,
    options: ContainerLogOptions,
    signal?: AbortSignal,
  ): Promise<AsyncIterable<string>> {
    signal?.throwIfAborted();
    const key = podKey(namespace, podName);
    this.faults.takeCrash(key, 'getContainerLogs');
    const record = this.deps.pods.get(key);
    if (record === undefined) throw notFound(`pod ${key} not found`);
    const isInit = (record.pod.spec?.initContainers ?? []).some((c) => c.name === containerName);
    if (!isInit && !(record.pod.spec?.containers ?? []).some((c) => c.name === containerName)) {
      throw invalidInput(`container ${containerName} is not valid for pod ${podName}`);
    }
    const previous = options.previous === true;
    const entry = record.containers?.logOf(containerName, previous);
    if (entry === undefined) {
      if (previous) throw invalidInput(`previous terminated container "${containerName}" in pod "${podName}" not found`);
      const statuses = [...(record.pod.status?.initContainerStatuses ?? []), ...(record.pod.status?.containerStatuses ?? [])];
      const reason = statuses.find((s) => s.name === containerName)?.state?.waiting?.reason ?? 'ContainerCreating';
      throw invalidInput(`container "${containerName}" in pod "${podName}" is waiting to start: ${reason}`);
    }
    const current = (): boolean => this.deps.pods.get(key) === record && record.containers?.logOf(containerName, previous) === entry;
    if (entry.kind === 'recorded') return recordedLogs({ clock: this.clock, log: entry.log, options, current, ...definedOnly({ signal }) });
    const label = `${podName}/${containerName}`;
    const source = (): LogSource | undefined => (current() ? { label, startedAt: entry.startedAt, endedAt: entry.endedAt } : undefined);
    return syntheticLogs({ clock: this.clock, intervalMs: this.deps.logIntervalMs, options, source, ...definedOnly({ signal }) });
  }

  /**
   * Runs a command of the built-in set (builtinShell.ts) against the container's current env and
   * volume files. Rejects `notFound` for an unknown pod, `invalidInput` for an unknown or not
   * running container or a missing mandatory ConfigMap/Secret.
   */
  async runInContainer(target: ContainerRef, command: readonly string[], streams: ContainerStreams, signal?: AbortSignal): Promise<number> {
    signal?.throwIfAborted();
    const { namespace, pod: podName, container: containerName } = target;
    const record = this.runningContainer(namespace, podName, containerName, 'runInContainer');
    let view;
    try {
      view = await containerView(deepCopyPod(record.pod), containerName, this.deps.configSource ?? emptyConfigSource, signal);
    } catch (error) {
      if (error instanceof MissingReference) throw invalidInput(error.message);
      throw transient(`reading the ConfigMaps and Secrets of pod ${podKey(namespace, podName)}: ${error instanceof Error ? error.message : String(error)}`);
    }
    return this.shellIn({ record, container: containerName, view }, command, streams, signal);
  }

  /** The built-in shell over `view` and the container's files, its output to `streams`. */
  private shellIn(at: { record: SimPod; container: string; view: ContainerView }, command: readonly string[], streams: ContainerStreams, signal?: AbortSignal): Promise<number> {
    const { record, container: containerName, view } = at;
    // A terminal turns "\n" into "\r\n" (onlcr); without one the bytes go as they are.
    const out = (write: ContainerStreams['stdout']) => (chunk: string): Promise<void> =>
      write ? write(streams.tty ? chunk.replace(/\r?\n/g, '\r\n') : chunk) : Promise.resolve();
    let size: TerminalSize | undefined;
    if (streams.resize) void (async () => {
      for await (const next of streams.resize ?? []) size = next;
    })().catch(() => undefined);
    const shell = new BuiltinShell({
      view,
      ...definedOnly({ files: this.filesOf(record, containerName, view) }),
      terminalSize: () => size,
      ...definedOnly({ stdin: streams.stdin }),
      stdout: out(streams.stdout),
      // With a terminal there is one output: stderr goes to it too.
      stderr: out(streams.tty ? streams.stdout : streams.stderr),
      tty: streams.tty,
      sleep: (ms, s) => sleep(this.clock, ms, s),
      now: () => this.clock.now(),
      ...definedOnly({ signal }),
    });
    return shell.run(command);
  }

  /**
   * Attaches to the container's main process: its synthetic log lines from now on, until the
   * container stops (resolving with its exit code 0) or `signal` aborts. The main process does not
   * read stdin, so stdin is left unread, as a real process leaves it: the host side stops reading
   * its client once its stdin buffer is full, rather than draining the client into memory.
   * An ephemeral container's main process is its shell (`kubectl debug -it` attaches to it): the
   * attach runs the built-in shell on the attach's streams, as exec would (debugProgram).
   */
  async attachToContainer(target: ContainerRef, streams: ContainerStreams, signal?: AbortSignal): Promise<number | undefined> {
    signal?.throwIfAborted();
    const { namespace, pod: podName, container: containerName } = target;
    const record = this.runningContainer(namespace, podName, containerName, 'attachToContainer');
    const debug = record.inPlace?.ephemeral.some((e) => e.name === containerName) === true
      ? record.pod.spec?.ephemeralContainers?.find((c) => c.name === containerName) : undefined;
    if (debug) return this.runInContainer(target, debugProgram(debug), streams, signal);
    const logs = await this.getContainerLogs(namespace, podName, containerName, { follow: true, tailLines: 0 }, signal);
    for await (const line of logs) await streams.stdout?.(streams.tty ? line.replace(/\n/g, '\r\n') : line);
    return signal?.aborted ? undefined : 0;
  }

  /**
   * One forwarded connection to a declared `containerPort`: a small HTTP server answers, naming
   * the pod, container and port (portResponder.ts). Rejects `invalidInput` for a port no
   * container declares (nothing listens there).
   */
  async portForward(namespace: string, podName: string, port: number, connection: PortConnection, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    const key = podKey(namespace, podName);
    this.faults.takeCrash(key, 'portForward');
    const record = this.deps.pods.get(key);
    if (record === undefined) throw notFound(`pod ${key} not found`);
    if (record.stage !== 'running') throw invalidInput(`pod ${key} is not running`);
    const container = (record.pod.spec?.containers ?? []).find((c) => (c.ports ?? []).some((p) => p.containerPort === port));
    if (!container) throw invalidInput(`nothing listens on port ${port} of pod ${key}: no container declares it`);
    await servePortConnection({ namespace, pod: podName, container: container.name, port }, connection, signal);
  }

  /**
   * A container's exec or httpGet hook, as far as the simulator can run it: exec through the
   * built-in shell (a non-zero exit fails it, with the kubelet's message shape); httpGet succeeds
   * on a port the pod declares (the responder there answers 200 to any request) and is refused on
   * any other. Rejects `invalidInput` when the container has no such hook.
   */
  async runLifecycleHook(namespace: string, podName: string, containerName: string, hook: LifecycleHookName, signal?: AbortSignal): Promise<void> {
    const record = this.runningContainer(namespace, podName, containerName, 'runLifecycleHook');
    const handler = longRunningContainers(record.pod.spec).find((c) => c.name === containerName)?.lifecycle?.[hook];
    const where = `for Container "${containerName}" in Pod "${podName}_${namespace}(${record.pod.metadata?.uid ?? ''})"`;
    if (handler?.exec) {
      const command = handler.exec.command ?? [];
      let output = '';
      const collect = (chunk: string | Buffer): Promise<void> => {
        output += chunk.toString();
        return Promise.resolve();
      };
      const code = await this.runInContainer({ namespace, pod: podName, container: containerName }, command, { tty: false, stdout: collect, stderr: collect }, signal);
      if (code !== 0) throw transient(`Exec lifecycle hook ([${command.join(' ')}]) ${where} failed - error: command '${command.join(' ')}' exited with ${code}, message: ${JSON.stringify(output)}`);
      return;
    }
    if (handler?.httpGet) {
      const path = handler.httpGet.path ?? '/';
      const named = handler.httpGet.port;
      const port = typeof named === 'number' ? named : (record.pod.spec?.containers ?? []).flatMap((c) => c.ports ?? []).find((p) => p.name === named)?.containerPort ?? Number(named);
      const failed = (error: string): Error => transient(`HTTP lifecycle hook (${path}) ${where} failed - error: ${error}`);
      let answer = '';
      const request = `GET ${path} HTTP/1.1\r\nHost: ${record.placement.podIP ?? 'localhost'}:${port}\r\nUser-Agent: kube-lifecycle/1.36\r\nConnection: close\r\n\r\n`;
      try {
        await this.portForward(namespace, podName, port, { input: (async function* () { yield Buffer.from(request); })(), write: async (c) => void (answer += c.toString()) }, signal);
      } catch (error) {
        throw failed(`Get "http://${record.placement.podIP ?? ''}:${port}${path}": dial tcp: connect: connection refused (${error instanceof Error ? error.message : String(error)})`);
      }
      const code = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);
      if (code < 200 || code >= 400) throw failed(`HTTP lifecycle hook answered ${code}`);
      return;
    }
    throw invalidInput(`container ${containerName} of pod ${podKey(namespace, podName)} has no exec or httpGet ${hook} hook`);
  }

  /**
   * The kubelet's kill of a container whose postStart hook failed: stopped within the grace period
   * (at least the kubelet's 2 s), then restarted as the pod's restartPolicy says for a kill.
   */
  async killContainer(namespace: string, podName: string, containerName: string, gracePeriodSeconds: number, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    const record = this.runningContainer(namespace, podName, containerName, 'killContainer');
    record.containers?.kill(containerName, Math.max(2, gracePeriodSeconds) * 1000);
  }

  /**
   * The postStart hook of a sidecar's run `containerID` succeeded (Tether ran it): the containers
   * after the sidecar start now, as the kubelet's next sync starts them (PodContainers holds them).
   */
  async postStartDone(namespace: string, podName: string, containerName: string, containerID: string, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    const record = this.deps.pods.get(podKey(namespace, podName));
    if (record === undefined) throw notFound(`pod ${podKey(namespace, podName)} not found`);
    record.containers?.postStartDone(containerName, containerID);
  }

  /**
   * An exec probe: the command run as `runInContainer` runs it, its output (stdout and stderr
   * together) kept for the probe's failure message; `signal` ends it at the probe's timeout.
   */
  async runProbe(record: SimPod, container: string, command: readonly string[], signal: AbortSignal): Promise<ExecResult> {
    signal.throwIfAborted();
    const { namespace, name } = podIdentity(record.pod);
    // A readiness probe goes on while the pod is deleted, as long as its container runs.
    const running = this.runningContainer(namespace, name, container, undefined, true);
    // As the kubelet's exec probe runs in the live process: with the env and volumes the instance
    // started with, never a read of the API (an outage or a deleted Secret must not fail probes).
    const view = running.containers?.launchedView(container);
    if (view === undefined) throw invalidInput(`container ${container} of pod ${podKey(namespace, name)} is not running`);
    let output = '';
    const collect = (chunk: string | Buffer): Promise<void> => {
      if (output.length < PROBE_OUTPUT_LIMIT) output = (output + chunk.toString()).slice(0, PROBE_OUTPUT_LIMIT);
      return Promise.resolve();
    };
    const exitCode = await this.shellIn({ record: running, container, view }, command, { tty: false, stdout: collect, stderr: collect }, signal);
    return { exitCode, output };
  }

  /** The files an exec sees: the pod's emptyDir volumes are the ones its containers write. */
  private filesOf(record: SimPod, containerName: string, view: ContainerView): ShellFileSystem | undefined {
    const container = longRunningContainers(record.pod.spec).find((c) => c.name === containerName);
    return container === undefined ? undefined : record.containers?.volumes.fileSystem(record.pod, container, view);
  }

  /** `operation` names the provider call a crash fault may be armed for; a probe is none, and reaches a stopping pod too. */
  private runningContainer(namespace: string, podName: string, containerName: string, operation: string | undefined, whileStopping = false): SimPod {
    const key = podKey(namespace, podName);
    if (operation !== undefined) this.faults.takeCrash(key, operation);
    const record = this.deps.pods.get(key);
    if (record === undefined) throw notFound(`pod ${key} not found`);
    // A sidecar runs beside the main containers, and exec reaches it as on a node; so does a started ephemeral container.
    if (!longRunningContainers(record.pod.spec).some((c) => c.name === containerName) && !record.inPlace?.ephemeral.some((e) => e.name === containerName)) {
      throw invalidInput(`container ${containerName} is not valid for pod ${podName}`);
    }
    if (record.stage !== 'running' && !(whileStopping && record.stage === 'stopping')) {
      throw invalidInput(`unable to upgrade connection: container not found ("${containerName}")${record.stage === 'starting' ? ': ContainerCreating' : ''}`);
    }
    return record;
  }
}
