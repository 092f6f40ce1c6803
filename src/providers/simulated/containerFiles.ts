/**
 * A container instance's writable files and its signals, in the shape the built-in shell takes
 * them (`ShellIO.files`, `ShellIO.signals`): the files start as the container's view (ConfigMap,
 * Secret and downward-API volumes) and take what the command writes, such as
 * `/dev/termination-log`; the signals carry the TERM of a graceful stop to a script that traps it.
 */
import { Buffer } from 'node:buffer';

/** The kubelet reads at most this much of the termination-message file (its last 4096 bytes). */
const MAX_TERMINATION_MESSAGE = 4096;

/**
 * The part of the shell's file system (`ShellFileSystem`) the runtime needs: the command writes,
 * the runtime reads the termination message back. Any `ShellFileSystem` is one.
 */
export interface ContainerFiles {
  read(path: string): string | undefined;
  /** Writes (or appends to) the file; an error such as "Read-only file system", else undefined. */
  write(path: string, content: string, options?: { readonly append?: boolean }): string | undefined;
}

/** Files by path: the view's to start with, and what the command writes. */
export class InstanceFiles implements ContainerFiles {
  private readonly files: Map<string, string>;

  constructor(initial: ReadonlyMap<string, string>) {
    this.files = new Map(initial);
  }

  read(path: string): string | undefined {
    return this.files.get(path);
  }

  write(path: string, content: string, options: { readonly append?: boolean } = {}): string | undefined {
    this.files.set(path, (options.append === true ? this.files.get(path) ?? '' : '') + content);
    return undefined;
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
