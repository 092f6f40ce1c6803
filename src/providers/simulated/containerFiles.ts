/**
 * A container instance's writable files and its signals, in the shape the built-in shell takes
 * them (`ShellIO.files`, `ShellIO.signals`): the files start as the container's view (ConfigMap,
 * Secret and downward-API volumes) and take what the command writes, such as
 * `/dev/termination-log`; the signals carry the TERM of a graceful stop to a script that traps it.
 */
import { Buffer } from 'node:buffer';
import type { Pod, PodSpec } from '../../adapters/kubernetes/model.js';
import type { ContainerView } from './containerView.js';
import { MemoryFileSystem, MemoryStore, TMP_STORE_LIMITS, type Mount, type ShellFileSystem } from './shell/fileSystem.js';

/** The kubelet reads at most this much of the termination-message file (its last 4096 bytes). */
const MAX_TERMINATION_MESSAGE = 4096;

/** What a container instance's command reads and writes: the shell's file system. */
export type ContainerFiles = ShellFileSystem;

type Container = PodSpec['containers'][number];

/** The kubelet's default `terminationMessagePath`. */
const TERMINATION_LOG = '/dev/termination-log';
/** Bytes of one pod's emptyDir volume: it lives in the node's memory, so it is capped. */
const EMPTY_DIR_LIMITS = { fileBytes: 1024 * 1024, totalBytes: 8 * 1024 * 1024 };

/**
 * One pod's emptyDir volumes, by volume name: shared by its containers (and exec sessions) and
 * kept across container restarts, gone with the pod, as the kubelet keeps them.
 */
export class PodVolumes {
  private readonly stores = new Map<string, MemoryStore>();

  emptyDir(volume: string): MemoryStore {
    let store = this.stores.get(volume);
    if (store === undefined) {
      store = new MemoryStore(EMPTY_DIR_LIMITS);
      this.stores.set(volume, store);
    }
    return store;
  }

  /**
   * The files `container` sees: the view's volume files (read-only), its pod's emptyDir volumes at
   * their mount paths, a private `/tmp`, and its termination-message file, fresh for each instance.
   */
  fileSystem(pod: Pod, container: Pick<Container, 'volumeMounts' | 'terminationMessagePath'>, view: ContainerView): ContainerFiles {
    const emptyDirs = new Set((pod.spec?.volumes ?? []).filter((v) => v.emptyDir !== undefined).map((v) => v.name));
    const mounts: Mount[] = [
      { path: '/tmp', store: new MemoryStore(TMP_STORE_LIMITS) },
      { path: container.terminationMessagePath ?? TERMINATION_LOG, store: new MemoryStore(TMP_STORE_LIMITS), file: true },
      ...(container.volumeMounts ?? []).filter((m) => emptyDirs.has(m.name))
        .map((m): Mount => ({ path: m.mountPath, store: this.emptyDir(m.name), readOnly: m.readOnly === true })),
    ];
    return new MemoryFileSystem({ files: view.files, mounts });
  }
}

/** The termination message the command wrote at `path`, bounded as the kubelet bounds it; '' if none. */
export function terminationFile(files: ContainerFiles, path: string): string {
  const bytes = Buffer.from(files.read(path) ?? '');
  return bytes.length <= MAX_TERMINATION_MESSAGE ? bytes.toString() : bytes.subarray(bytes.length - MAX_TERMINATION_MESSAGE).toString();
}

export type SignalName = 'TERM' | 'INT';

/** `ShellSignals`: a script subscribes while it traps; the runtime delivers. */
export class InstanceSignals {
  private readonly handlers = new Set<(signal: SignalName) => void>();

  subscribe(handler: (signal: SignalName) => void): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  /** Whether anything handles signals (a script without a trap takes TERM's default action). */
  get handled(): boolean {
    return this.handlers.size > 0;
  }

  deliver(signal: SignalName): void {
    for (const handler of [...this.handlers]) handler(signal);
  }
}
