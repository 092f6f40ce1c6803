/**
 * Certificate files watched while Tether runs, so that cert-manager (or an operator) rotating
 * them needs no restart. The files are read every `checkIntervalMs` (60 s) and compared by
 * content: Kubernetes updates a Secret volume by swapping the `..data` symlink of the directory,
 * which `fs.watch` on a file misses (the watched inode is no longer the file) and which no mtime
 * of the path shows. `fs.watch` on each file's directory is kept as a hint only: an event asks for a
 * check `settleMs` (1 s) later, so that both files of a pair are written before they are read.
 *
 * New contents are checked whole (certificateFiles.ts) before anyone hears of them; contents that
 * fail the check leave the material in use as it is, are logged once with the file and the
 * problem, and are read again at every period, so the next write is picked up.
 * Timers run on the clock given (by default one that never keeps the process alive).
 */
import { X509Certificate } from 'node:crypto';
import { watch, type FSWatcher } from 'node:fs';
import { dirname } from 'node:path';
import { backgroundClock } from '../adapters/clock.js';
import type { Logger } from '../adapters/logger.js';
import type { Clock, Timer } from '../lib/clock.js';
import { errorMessage } from '../lib/errorMessage.js';
import { LifecycleControl, type Lifecycle } from '../lib/lifecycle.js';
import { ChangeListeners } from './changeListeners.js';
import { checkCertificateFiles, readCertificateFiles, type CertificateFiles, type TlsMaterial } from './certificateFiles.js';

export const DEFAULT_CERTIFICATE_CHECK_INTERVAL_MS = 60_000;
export const DEFAULT_CERTIFICATE_SETTLE_MS = 1_000;
/** A shorter interval is taken as this: reading the files more often buys nothing. */
export const MIN_CERTIFICATE_CHECK_INTERVAL_MS = 1_000;

/** TLS material that may change: the one in use now, and news of each change once it is checked. */
export interface CertificateSource {
  current(): TlsMaterial;
  /** `listener` hears each new material; returns what stops it hearing. */
  subscribe(listener: (material: TlsMaterial) => void): () => void;
}

export type CheckOutcome =
  | { readonly kind: 'unchanged' }
  | { readonly kind: 'reloaded'; readonly material: TlsMaterial }
  | { readonly kind: 'refused'; readonly problem: string }
  | { readonly kind: 'stopped' };

/**
 * The watched files, with the one lifecycle (src/lib/lifecycle.ts): ready once loaded (the
 * factory returns then); `stop()` cancels the timers and closes the directory watchers, a watcher
 * that fails to close being logged.
 */
export interface WatchedCertificateFiles extends CertificateSource, Lifecycle {
  readonly files: CertificateFiles;
  /** Reads the files now, as the periodic check does (a check in progress is joined, then run again). */
  check(): Promise<CheckOutcome>;
}

/** Calls `onEvent` when something in `directory` changes; best effort (see the module's comment). */
export type DirectoryWatch = (directory: string, onEvent: () => void) => { close(): void };

export interface WatchCertificateFilesOptions {
  readonly clock?: Clock;
  readonly logger?: Logger;
  readonly checkIntervalMs?: number;
  readonly settleMs?: number;
  /** Where the settings live, for messages: "kubeletApi.". */
  readonly settingPrefix?: string;
  /** Default: `fs.watch` on the directory, unref'd; a directory that cannot be watched is left to the periodic check. */
  readonly watchDirectory?: DirectoryWatch;
  /** Hears the outcome of every check after the first load (for a metric, or a test). */
  readonly onCheck?: (outcome: CheckOutcome) => void;
}

function fsWatchDirectory(logger: Logger | undefined): DirectoryWatch {
  return (directory, onEvent) => {
    let watcher: FSWatcher | undefined;
    try {
      watcher = watch(directory, { persistent: false }, () => onEvent());
      watcher.on('error', (error: unknown) => {
        logger?.debug('certificate directory watch ended; the periodic check goes on', { directory, error: errorMessage(error) });
        watcher?.close();
      });
    } catch (error) {
      logger?.debug('certificate directory cannot be watched; the periodic check goes on', { directory, error: errorMessage(error) });
    }
    return { close: () => watcher?.close() };
  };
}

/** What an operator checks in the log after a rotation: which certificate is served now. */
function describe(material: TlsMaterial): Record<string, string> {
  if (!material.serving) return {};
  const x = new X509Certificate(material.serving.cert);
  return { subject: x.subject, validTo: x.validTo, fingerprint256: x.fingerprint256 };
}

/**
 * Loads the files (throws, naming the file and the problem, if they cannot be served with) and
 * watches them until `stop()`.
 */
export async function watchCertificateFiles(files: CertificateFiles, options: WatchCertificateFilesOptions = {}): Promise<WatchedCertificateFiles> {
  const clock = options.clock ?? backgroundClock;
  const prefix = options.settingPrefix ?? '';
  const interval = Math.max(MIN_CERTIFICATE_CHECK_INTERVAL_MS, options.checkIntervalMs ?? DEFAULT_CERTIFICATE_CHECK_INTERVAL_MS);
  const settle = options.settleMs ?? DEFAULT_CERTIFICATE_SETTLE_MS;
  const first = await readCertificateFiles(files);
  const checked = checkCertificateFiles(first, prefix);
  if (!checked.ok) throw new Error(checked.problem);

  let material = checked.material;
  let inUse = first.fingerprint; // the contents `material` came from
  let lastRead = first.fingerprint; // the contents last checked, good or not: each is checked once
  let stopped = false;
  let running: Promise<CheckOutcome> | undefined;
  let again = false;
  let poll: Timer | undefined;
  let hint: Timer | undefined;
  const listeners = new ChangeListeners<TlsMaterial>('kubelet API certificate changes', options.logger);

  const checkOnce = async (): Promise<CheckOutcome> => {
    const snapshot = await readCertificateFiles(files);
    if (stopped) return { kind: 'stopped' };
    if (snapshot.fingerprint === lastRead) return { kind: 'unchanged' };
    lastRead = snapshot.fingerprint;
    const result = checkCertificateFiles(snapshot, prefix);
    if (!result.ok) {
      options.logger?.error(`${result.problem}; the kubelet API goes on serving the certificates it has, and reads the files again every ${interval} ms`);
      return { kind: 'refused', problem: result.problem };
    }
    if (snapshot.fingerprint === inUse) {
      options.logger?.info('kubelet API certificate files are back to the contents in use', { ...files });
      return { kind: 'unchanged' };
    }
    material = result.material;
    inUse = snapshot.fingerprint;
    options.logger?.info('kubelet API certificate files reloaded; new connections use them', { ...files, ...describe(material) });
    listeners.emit(material);
    return { kind: 'reloaded', material };
  };

  const check = (): Promise<CheckOutcome> => {
    if (stopped) return Promise.resolve({ kind: 'stopped' });
    if (running) {
      again = true;
      return running;
    }
    running = (async (): Promise<CheckOutcome> => {
      let outcome: CheckOutcome;
      do {
        again = false;
        outcome = await checkOnce().catch((error: unknown): CheckOutcome => {
          options.logger?.error('kubelet API certificate check failed', { error: errorMessage(error) });
          return { kind: 'refused', problem: errorMessage(error) };
        });
        try {
          options.onCheck?.(outcome);
        } catch (error) {
          options.logger?.error('a listener of kubelet API certificate checks failed', { error: errorMessage(error) });
        }
      } while (again && !stopped);
      return outcome;
    })().finally(() => {
      running = undefined;
    });
    return running;
  };

  const schedulePoll = (): void => {
    if (stopped) return;
    poll = clock.setTimer(interval, () => {
      void check().then(schedulePoll);
    });
  };
  const onHint = (): void => {
    if (stopped || hint) return;
    hint = clock.setTimer(settle, () => {
      hint = undefined;
      void check();
    });
  };
  const watchDirectory = options.watchDirectory ?? fsWatchDirectory(options.logger);
  const directories = [...new Set([files.certFile, files.keyFile, files.clientCAFile].filter((p): p is string => p !== undefined).map((p) => dirname(p)))];
  const watchers = directories.map((directory) => watchDirectory(directory, onHint));
  schedulePoll();

  const life = new LifecycleControl({
    clock,
    release: () => {
      stopped = true;
      poll?.cancel();
      hint?.cancel();
      listeners.clear();
      // Each watcher is closed even when one before it throws; what threw is logged.
      for (const watcher of watchers) {
        try {
          watcher.close();
        } catch (error) {
          options.logger?.warn('closing a certificate directory watch failed', { error: errorMessage(error) });
        }
      }
    },
  });
  life.markReady();

  return {
    files,
    current: () => material,
    subscribe: (listener) => listeners.add(listener),
    check,
    ready: life.ready,
    done: life.done,
    stop: (o) => life.stop(o),
  };
}
