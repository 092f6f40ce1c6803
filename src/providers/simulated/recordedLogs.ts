/**
 * A container instance's recorded log (containerLog.ts) served as `kubectl logs` asks:
 * `sinceSeconds`, then `tailLines`, `timestamps` (RFC 3339 with nanoseconds and a space, as the
 * kubelet prefixes them), `limitBytes` across the stream, and `follow` until the instance ends,
 * the reader's signal aborts or the log is no longer the container's.
 */
import type { Clock } from '../../lib/clock.js';
import type { ContainerLogOptions } from '../provider.js';
import type { ContainerLog, LogLine } from './containerLog.js';
import { ByteBudget, rfc3339Nano } from './syntheticLogs.js';

export interface RecordedLogStream {
  readonly clock: Clock;
  readonly log: ContainerLog;
  readonly options: ContainerLogOptions;
  /** Whether the log is still the one asked for (the pod and its instance still exist). */
  readonly current: () => boolean;
  readonly signal?: AbortSignal;
}

function format(line: LogLine, timestamps: boolean): string {
  return timestamps ? `${rfc3339Nano(line.at)} ${line.text}` : line.text;
}

/** Resolves when the log changes or the signal aborts, whichever comes first. */
function changedOrAborted(log: ContainerLog, signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return log.changed();
  return new Promise((resolve) => {
    const done = (): void => {
      signal.removeEventListener('abort', done);
      resolve();
    };
    signal.addEventListener('abort', done, { once: true });
    void log.changed().then(done);
  });
}

export async function* recordedLogs(stream: RecordedLogStream): AsyncGenerator<string, void, undefined> {
  const { clock, log, options, signal } = stream;
  const budget = new ByteBudget(options.limitBytes);
  const timestamps = options.timestamps === true;
  const first = log.since(0);
  let selected = first.lines;
  if (options.sinceSeconds !== undefined) {
    const since = clock.now() - options.sinceSeconds * 1000;
    selected = selected.filter((l) => l.at >= since);
  }
  if (options.tailLines !== undefined) selected = options.tailLines <= 0 ? [] : selected.slice(-options.tailLines);
  for (const line of selected) {
    if (budget.exhausted) return;
    yield budget.take(format(line, timestamps));
  }
  if (options.follow !== true) return;
  let next = first.next;
  for (;;) {
    if (budget.exhausted || signal?.aborted === true || !stream.current()) return;
    const fresh = log.since(next);
    next = fresh.next;
    for (const line of fresh.lines) {
      if (budget.exhausted) return;
      yield budget.take(format(line, timestamps));
    }
    if (log.endedAt !== undefined && log.since(next).lines.length === 0) return;
    await changedOrAborted(log, signal);
  }
}
