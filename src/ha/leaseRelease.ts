/**
 * A Lease's last write on stop: a node lock given back (an update with an empty holder) or the
 * replica's membership Lease deleted. One call, ended by the renew deadline; a failure is only
 * logged, since the Lease then expires as a crash would leave it. `onStopped` runs whatever happened.
 */
import { callWithDeadline } from '../lib/callWithDeadline.js';
import { errorMessage } from '../lib/errorMessage.js';
import type { Clock } from '../lib/clock.js';

export async function releaseLease(o: {
  readonly clock: Clock;
  /** The write; undefined: nothing to give back (never held, or a stop that leaves the Lease to expire). */
  readonly write: (() => Promise<unknown>) | undefined;
  readonly deadlineMs: number;
  readonly failed: (error: string) => void;
  readonly onStopped: () => void;
}): Promise<void> {
  try {
    if (o.write) await callWithDeadline(o.clock, o.deadlineMs, undefined, o.write).catch((error: unknown) => o.failed(errorMessage(error)));
  } finally {
    o.onStopped();
  }
}
