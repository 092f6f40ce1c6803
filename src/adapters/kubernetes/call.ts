/**
 * The one way the client implementations call the API: through the rate limiter at a priority,
 * under a deadline for its class, with every rejection converted into a KubeApiError naming the
 * operation.
 *
 * Why a deadline of our own: client-node's fetch sets none, so a request whose packets are
 * silently dropped (a frozen API server, a partition) would hang for minutes and take the
 * caller's retry loop with it. The deadline runs from the moment the request leaves the queue;
 * the time spent queued is the limiter's business (and a fence's, see {@link CallContext.signal}).
 */
import type { ConfigurationOptions, RequestContext, ResponseContext } from '@kubernetes/client-node';
import { Observable } from '@kubernetes/client-node';
import type { Clock } from '../../lib/clock.js';
import { callWithDeadline } from '../../lib/callWithDeadline.js';
import { systemClock } from '../clock.js';
import { KubeApiError, translateErrors } from './errors.js';
import { isKind } from '../../lib/errorKind.js';
import { describeOperation, type Operation } from './operation.js';
import type { Priority, RequestScheduler, ScheduleOptions } from './rateLimiter.js';
import { definedOnly } from '../../lib/defaults.js';

/** How long one request of each class may take, in ms, from the moment it is sent. */
export interface CallDeadlines {
  /** Lease reads and writes, and the node status heartbeat (default 5 s). */
  readonly lease: number;
  /** Pod status patches (default 10 s). */
  readonly status: number;
  /** One page of a list (default 30 s). */
  readonly list: number;
  /** A watch, until the server's response headers arrive (default 15 s). */
  readonly watchConnect: number;
  /** Everything else: reads, creates, deletes, other patches (default 10 s). */
  readonly other: number;
}

export type DeadlineClass = keyof CallDeadlines;

export const DEFAULT_CALL_DEADLINES: CallDeadlines = { lease: 5_000, status: 10_000, list: 30_000, watchConnect: 15_000, other: 10_000 };

/** Every problem with configured deadlines, each naming its field under `where`. */
export function validateCallDeadlines(deadlines: Partial<CallDeadlines>, where = 'deadlines'): string[] {
  return Object.entries(deadlines).flatMap(([field, value]) =>
    typeof value === 'number' && Number.isFinite(value) && value > 0 ? [] : [`${where}.${field}: expected a positive number of milliseconds, got ${JSON.stringify(value)}`],
  );
}

/** What a call needs besides the request itself. */
export interface CallContext {
  readonly limiter: RequestScheduler;
  readonly clock?: Clock;
  readonly deadlines?: Partial<CallDeadlines>;
  /**
   * The fence of the writer these calls belong to, read at each call: when it aborts, calls still
   * queued are dropped and calls in flight abandoned (a node whose lock is lost stops writing).
   */
  readonly signal?: () => AbortSignal | undefined;
}

/** A bare scheduler (tests, old callers) or a full context. */
export type Caller = RequestScheduler | CallContext;

export function callContext(caller: Caller): CallContext {
  return 'schedule' in caller ? { limiter: caller } : caller;
}

export function deadlineOf(caller: Caller, deadlineClass: DeadlineClass): number {
  return callContext(caller).deadlines?.[deadlineClass] ?? DEFAULT_CALL_DEADLINES[deadlineClass];
}

/** The class of a request: a list's, else by its priority, unless the caller names one. */
function classOf(priority: Priority, op: Operation): DeadlineClass {
  if (op.verb === 'list') return 'list';
  if (priority === 'lease') return 'lease';
  if (priority === 'status') return 'status';
  return 'other';
}

/**
 * Request options that hand `signal` to client-node's fetch, so an abandoned request also closes
 * its socket; `base` (e.g. from setHeaderOptions) is kept.
 */
export function withSignal(signal: AbortSignal, base?: ConfigurationOptions): ConfigurationOptions {
  return withMiddleware(base, {
    pre: (context) => {
      context.setSignal(signal);
      return context;
    },
  });
}

/** What one middleware does to a request before it is sent and to its answer; a hook left out passes its context on. */
export interface MiddlewareHooks {
  readonly pre?: (context: RequestContext) => RequestContext;
  readonly post?: (context: ResponseContext) => Promise<ResponseContext>;
}

/** `base` (e.g. from setHeaderOptions) with one more middleware, after its own. */
export function withMiddleware(base: ConfigurationOptions | undefined, hooks: MiddlewareHooks): ConfigurationOptions {
  const { pre, post } = hooks;
  const middleware = {
    pre: (context: RequestContext): Observable<RequestContext> => new Observable(Promise.resolve(pre ? pre(context) : context)),
    post: (context: ResponseContext): Observable<ResponseContext> => new Observable(post ? post(context) : Promise.resolve(context)),
  };
  return { ...base, middleware: [...(base?.middleware ?? []), middleware], middlewareMergeStrategy: 'append' };
}

/** How one call is scheduled: the limiter's options, and the class whose deadline applies. */
export interface CallOptions extends Omit<ScheduleOptions, 'signal'> {
  /** Default: 'list' for a list, else by priority (lease, status, else other). */
  readonly deadline?: DeadlineClass;
  /**
   * The caller's own cancellation, beside the writer's fence: aborted, the call is dropped
   * unsent if still queued and abandoned if in flight (a create whose actor gave up on it).
   */
  readonly signal?: AbortSignal;
}

/**
 * The operation's verb is what is counted; its words name the call in the KubeApiError.
 * `fn` gets request options carrying the call's abort signal; passing them on is what frees the
 * socket at the deadline (the call rejects at the deadline either way).
 */
export function call<T>(
  caller: Caller,
  priority: Priority,
  op: Operation,
  fn: (options: ConfigurationOptions) => Promise<T>,
  options: CallOptions = {},
): Promise<T> {
  const { deadline = classOf(priority, op), signal: own, ...scheduling } = options;
  const ctx = callContext(caller);
  const { limiter } = ctx;
  const { verb } = op;
  const operation = describeOperation(op);
  const writerFence = ctx.signal?.();
  // Combined only when the caller brings a signal: the fence alone keeps its one listener (abortFanOut.ts).
  const fence = own === undefined ? writerFence : writerFence === undefined ? own : AbortSignal.any([writerFence, own]);
  const ms = deadlineOf(ctx, deadline);
  return translateErrors(operation, () =>
    limiter.schedule(
      priority,
      async () => {
        try {
          const result = await translateErrors(operation, () => callWithDeadline(ctx.clock ?? systemClock, ms, fence, (signal) => fn(withSignal(signal))));
          limiter.recordRequest?.(verb, '2xx');
          return result;
        } catch (error) {
          limiter.recordRequest?.(verb, error instanceof KubeApiError && error.status !== undefined ? String(error.status) : 'network');
          throw error;
        }
      },
      { ...scheduling, ...definedOnly({ signal: fence }) },
    ),
  );
}

/** Resolves to undefined when the object does not exist (404); other errors pass through. */
export async function orUndefined<T>(pending: Promise<T>): Promise<T | undefined> {
  try {
    return await pending;
  } catch (err) {
    if (isKind(err, 'not-found')) return undefined;
    throw err;
  }
}

/** Resolves quietly when the object is already gone (404); other errors pass through. */
export async function ignoreNotFound(pending: Promise<unknown>): Promise<void> {
  try {
    await pending;
  } catch (err) {
    if (!isKind(err, 'not-found')) throw err;
  }
}
