/**
 * Giving a node lock back on stop: one update with an
 * empty holder, ended by the renew deadline; a failure is only logged, since the Lease then
 * expires as a crash would leave it. `onStopped` runs whatever happened.
 */
import { callWithDeadline } from '../lib/callWithDeadline.js';
import { errorMessage } from '../lib/errorMessage.js';
import type { Clock } from '../lib/clock.js';
import type { LeaseApi } from '../adapters/kubernetes/leaseApi.js';
import type { Lease } from '../adapters/kubernetes/model.js';

export async function releaseLease(o: {
  readonly clock: Clock;
  readonly leaseApi: LeaseApi;
  readonly lease: Lease | undefined;
  readonly deadlineMs: number;
  readonly failed: (error: string) => void;
  readonly onStopped: () => void;
}): Promise<void> {
  try {
    if (o.lease) {
      const lease = o.lease;
      await callWithDeadline(o.clock, o.deadlineMs, undefined, () => o.leaseApi.updateLease(lease)).catch((error: unknown) => o.failed(errorMessage(error)));
    }
  } finally {
    o.onStopped();
  }
}
