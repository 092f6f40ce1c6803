/**
 * Tests wait on conditions, never on sleeps: `waitFor(description, probe, {timeoutMs, intervalMs})`
 * polls `probe` until it returns a value other than `undefined`/`false`, and on timeout fails with
 * the description and the probe's last error. Throw `GiveUp` from a probe to fail at once.
 */
export { GiveUp, waitFor, WaitTimeoutError, type Probe, type WaitOptions } from '../../src/harness/poll.js';
