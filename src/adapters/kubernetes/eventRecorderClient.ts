import type { EventsV1Api, EventsV1Event } from '@kubernetes/client-node';
import { PatchStrategy, V1MicroTime, setHeaderOptions } from '@kubernetes/client-node';
import type { Clock, Timer } from '../../lib/clock.js';
import { systemClock } from '../clock.js';
import { call, callContext, type Caller } from './call.js';
import { describeApiError } from './errors.js';
import type { EventRecorder, EventSource, EventSubject, EventType } from './eventRecorder.js';
import type { KubeLog } from './log.js';
import { noopKubeLog } from './log.js';
import { operation } from './operation.js';
import { unreadAnswer } from './plainAnswers.js';
import { isQueueFull } from './rateLimiter.js';
import { definedOnly } from '../../lib/defaults.js';

export const REPORTING_CONTROLLER = 'tether.dev/virtual-kubelet';

export interface EventRecorderOptions {
  /** reportingInstance: the virtual node's (or host's) name. */
  readonly reportingInstance: string;
  readonly clock?: Clock;
  readonly log?: KubeLog;
  /** Repeats within this long of the previous occurrence join its series (default 6 min, as client-go). */
  readonly seriesWindowMs?: number;
  /** A series' count is written at most this often (default 30 s). */
  readonly seriesFlushMs?: number;
  /** Distinct events remembered for aggregation (default 4096; the oldest are forgotten). */
  readonly maxTracked?: number;
}

interface Series {
  readonly namespace: string;
  /** Resolves to the created Event's name, or undefined if creating it failed. */
  created: Promise<string | undefined>;
  count: number;
  written: number;
  lastObserved: number;
  flushTimer: Timer | undefined;
  flushing: Promise<void>;
}

/**
 * {@link EventRecorder} posting events.k8s.io/v1 Events at 'other' priority. The first
 * occurrence creates an Event; repeats within the window bump a local count that a timer writes
 * as `series: {count, lastObservedTime}` (merge patch), so a flapping pod costs one write per
 * flush period, not one Event per occurrence.
 */
export class EventRecorderClient implements EventRecorder {
  private readonly tracked = new Map<string, Series>();
  private readonly clock: Clock;
  private readonly log: KubeLog;
  private readonly windowMs: number;
  private readonly flushMs: number;
  private readonly maxTracked: number;

  constructor(
    private readonly api: EventsV1Api,
    private readonly limiter: Caller,
    private readonly options: EventRecorderOptions,
  ) {
    this.clock = options.clock ?? systemClock;
    this.log = options.log ?? noopKubeLog;
    this.windowMs = options.seriesWindowMs ?? 6 * 60_000;
    this.flushMs = options.seriesFlushMs ?? 30_000;
    this.maxTracked = options.maxTracked ?? 4096;
  }

  record(regarding: EventSubject, type: EventType, reason: string, note: string, action: string): void {
    const source = regarding.reporter;
    const now = this.clock.now();
    const key = JSON.stringify([regarding.kind, regarding.namespace, regarding.name, regarding.uid, regarding.fieldPath, type, reason, action, note, source?.component]);
    const known = this.tracked.get(key);
    if (known && now - known.lastObserved <= this.windowMs) {
      known.count += 1;
      known.lastObserved = now;
      known.flushTimer ??= this.clock.setTimer(this.flushMs, () => this.flush(key, known));
      return;
    }
    // In a storm the queue is full: the Event is dropped before its body, request and rejection
    // are built, work a storm can least spare (issue 28). Counted in the limiter's metrics as any drop.
    if (callContext(this.limiter).limiter.refuses?.('other') === true) {
      this.log.debug('event dropped: too many queued', { reason, regarding: regarding.name });
      return;
    }
    known?.flushTimer?.cancel();
    const namespace = regarding.namespace ?? 'default';
    const body = this.eventBody(regarding, namespace, { type, reason, note, action, source }, now);
    const series: Series = {
      namespace,
      created: Promise.resolve(undefined),
      count: 1,
      written: 1,
      lastObserved: now,
      flushTimer: undefined,
      flushing: Promise.resolve(),
    };
    // The answer is not read: the Event keeps the name it was created with (plainAnswers.ts).
    series.created = call(this.limiter, 'other', operation('create', `event ${reason} on ${regarding.kind} ${regarding.name}`), (o) =>
      this.api.createNamespacedEvent({ namespace, body }, unreadAnswer(o)),
    ).then(
      () => body.metadata?.name,
      (err: unknown) => {
        if (this.tracked.get(key) === series) this.tracked.delete(key);
        // Dropped past the Events' queue bound (a storm): counted in the limiter's metrics, so
        // not a warning each, or a storm of Events would become a storm of log lines.
        if (isQueueFull(err)) this.log.debug('event dropped: too many queued', { reason, regarding: regarding.name });
        else this.log.warn('could not record event', { reason, regarding: regarding.name, error: describeApiError(err) });
        return undefined;
      },
    );
    this.tracked.delete(key);
    this.tracked.set(key, series);
    this.forgetOldest();
  }

  /** Writes every pending series count now; resolves when all writes have finished or failed. */
  async flushAll(): Promise<void> {
    const pending = [...this.tracked.entries()].map(([key, s]) => {
      s.flushTimer?.cancel();
      this.flush(key, s);
      return s.flushing;
    });
    await Promise.all(pending);
  }

  private flush(key: string, series: Series): void {
    series.flushTimer = undefined;
    series.flushing = series.flushing.then(() => this.writeSeries(key, series));
  }

  private async writeSeries(key: string, series: Series): Promise<void> {
    const name = await series.created;
    if (name === undefined || series.count <= series.written) return;
    const count = series.count;
    const body = { series: { count, lastObservedTime: new V1MicroTime(series.lastObserved) } };
    try {
      await call(this.limiter, 'other', operation('update', `event series ${name}`), (o) =>
        this.api.patchNamespacedEvent(
          { name, namespace: series.namespace, body },
          setHeaderOptions('Content-Type', PatchStrategy.MergePatch, o),
        ),
      );
      series.written = count;
    } catch (err) {
      // The Event may have been garbage-collected; the next occurrence starts a new one.
      if (this.tracked.get(key) === series) this.tracked.delete(key);
      this.log.warn('could not update event series', { event: name, error: describeApiError(err) });
    }
  }

  private forgetOldest(): void {
    for (const [key, s] of this.tracked) {
      if (this.tracked.size <= this.maxTracked) return;
      if (s.flushTimer) continue; // a pending count is written first
      this.tracked.delete(key);
    }
  }

  private eventBody(
    regarding: EventSubject,
    namespace: string,
    what: { type: EventType; reason: string; note: string; action: string; source: EventSource | undefined },
    now: number,
  ): EventsV1Event {
    return {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      // A full name, as the kubelet makes them (`<object>.<hex time>`): the API server refuses a
      // generateName that ends in a dot, and a name ending in a dash reads badly.
      metadata: { name: eventName(regarding.name, now), namespace },
      eventTime: new V1MicroTime(now),
      // events.k8s.io/v1 refuses `deprecatedSource` on create: an Event recorded for the kubelet
      // names it as the reporting controller, as client-go fills it in from the kubelet's source.
      reportingController: what.source?.component ?? REPORTING_CONTROLLER,
      reportingInstance: truncate(what.source?.host ?? this.options.reportingInstance, 128),
      type: what.type,
      reason: truncate(what.reason, 128),
      action: truncate(what.action, 128),
      note: truncate(what.note, 1024),
      regarding: {
        kind: regarding.kind,
        apiVersion: regarding.apiVersion,
        name: regarding.name,
        ...definedOnly({ namespace: regarding.namespace, uid: regarding.uid, fieldPath: regarding.fieldPath }),
      },
    };
  }
}

let sequence = 0;

/** `<object>.<hex nanoseconds-ish>`: unique per process, valid as a DNS subdomain. */
function eventName(objectName: string, now: number): string {
  sequence = (sequence + 1) % 0xfff;
  const suffix = `${(now * 1000 + sequence).toString(16)}`;
  return `${objectName.slice(0, 253 - suffix.length - 1)}.${suffix}`;
}

/** Truncates to `max` UTF-8 bytes (the API's limits are in bytes). */
function truncate(text: string, max: number): string {
  if (Buffer.byteLength(text) <= max) return text;
  let out = text.slice(0, max);
  while (Buffer.byteLength(out) > max - 3) out = out.slice(0, -1);
  return `${out}...`;
}
