import t from 'tap';
import { GiveUp, waitFor, WaitTimeoutError } from './waitFor.js';

void t.test('waitFor resolves with the first value that is not undefined or false', async (t) => {
  let calls = 0;
  const value = await waitFor('the third call', () => (++calls >= 3 ? `call ${calls}` : undefined), { intervalMs: 1 });
  t.equal(value, 'call 3');
});

void t.test('waitFor treats a throwing probe as not yet, and reports its last error on timeout', async (t) => {
  const wait = waitFor('a condition that never holds', () => {
    throw new Error('connection refused');
  }, { timeoutMs: 50, intervalMs: 5 });
  await t.rejects(wait, WaitTimeoutError);
  await t.rejects(wait, { message: /timed out after 50 ms waiting for a condition that never holds; last error: connection refused/ });
});

void t.test('waitFor stops at once when the probe gives up', async (t) => {
  const started = Date.now();
  await t.rejects(waitFor('anything', () => {
    throw new GiveUp('the process exited');
  }, { timeoutMs: 10_000 }), { name: 'GiveUp', message: 'the process exited' });
  t.ok(Date.now() - started < 1_000);
});

void t.test('waitFor accepts async probes and false as not yet', async (t) => {
  let n = 0;
  t.equal(await waitFor('async', async () => ++n > 1 && n, { intervalMs: 1 }), 2);
});
