/**
 * One read outside the rate limiter (start-up reads, the simulated provider's ConfigMap and
 * Secret reads) under a deadline that reaches the request: the signal handed to client-node's
 * fetch aborts at the deadline or when the caller's does, so the request's socket goes with the
 * promise rather than running on behind it. Failures reject as KubeApiError naming `operation`;
 * the deadline rejects with DeadlineExceededError ("timed out after N ms"), the caller's abort
 * with its reason.
 */
import type { ConfigurationOptions } from '@kubernetes/client-node';
import { callWithDeadline } from '../../lib/callWithDeadline.js';
import type { Clock } from '../../lib/clock.js';
import { systemClock } from '../clock.js';
import { DEFAULT_CALL_DEADLINES, withSignal } from './call.js';
import { translateErrors } from './errors.js';

export interface BoundedReadOptions {
  /** Default 10 s, the deadline of an ordinary read (DEFAULT_CALL_DEADLINES.other). */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  readonly clock?: Clock;
}

export function boundedRead<T>(operation: string, options: BoundedReadOptions, read: (request: ConfigurationOptions) => Promise<T>): Promise<T> {
  const ms = options.timeoutMs ?? DEFAULT_CALL_DEADLINES.other;
  return callWithDeadline(options.clock ?? systemClock, ms, options.signal, (signal) => translateErrors(operation, () => read(withSignal(signal))));
}
