/** Signals from outside (the kubelet's stop) and sleeping on the injected clock. */
import t from 'tap';
import { ManualClock } from '../../../support/manualClock.js';
import { settle, startShell } from '../../../support/shell.js';

t.test('sleep N waits on the injected clock, holding one timer and no CPU', async (t) => {
  const clock = new ManualClock();
  const run = startShell(['sh', '-c', 'echo start; sleep 30; echo end'], { clock });
  await settle();
  t.equal(run.output(), 'start\n');
  t.equal(clock.pendingTimers, 1);
  clock.advance(29_999);
  await settle();
  t.equal(run.output(), 'start\n', 'not before its time');
  clock.advance(1);
  t.same(await run.done, { code: 0, out: 'start\nend\n', err: '' });
});

t.test('sleep infinity holds no timer and ends only on a signal', async (t) => {
  const clock = new ManualClock();
  const run = startShell(['sleep', 'infinity'], { clock });
  await settle();
  t.equal(clock.pendingTimers, 0);
  run.send('TERM');
  t.equal((await run.done).code, 143);
});

t.test('TERM with no trap ends the script with 143; INT with 130', async (t) => {
  const clock = new ManualClock();
  const term = startShell(['sh', '-c', 'sleep 100; echo never'], { clock });
  await settle();
  term.send('TERM');
  t.same(await term.done, { code: 143, out: '', err: '' });
  const int = startShell(['sh', '-c', 'while true; do sleep 1; done'], { clock });
  await settle();
  int.send('INT');
  t.equal((await int.done).code, 130);
});

t.test('trap runs its handler on TERM, interrupting the sleep, and the handler decides the exit', async (t) => {
  const clock = new ManualClock();
  const run = startShell(['sh', '-c', 'trap "echo bye; exit 0" TERM; echo up; sleep 3600; echo never'], { clock });
  await settle();
  run.send('TERM');
  t.same(await run.done, { code: 0, out: 'up\nbye\n', err: '' });
});

t.test('a handler that does not exit lets the script go on after the interrupted sleep', async (t) => {
  const clock = new ManualClock();
  const run = startShell(['sh', '-c', 'trap "echo got TERM" TERM; sleep 100; echo status $?; sleep 5; echo done'], { clock });
  await settle();
  run.send('TERM');
  await settle();
  t.equal(run.output(), 'got TERM\nstatus 143\n');
  clock.advance(5000);
  t.same(await run.done, { code: 0, out: 'got TERM\nstatus 143\ndone\n', err: '' });
});

t.test("trap '' ignores a signal; trap - restores the default", async (t) => {
  const clock = new ManualClock();
  const run = startShell(['sh', '-c', "trap '' TERM; sleep 1; trap - TERM; sleep 100"], { clock });
  await settle();
  run.send('TERM');
  clock.advance(1000);
  await settle();
  t.equal(clock.pendingTimers, 1, 'the ignored TERM left the first sleep alone; the second runs');
  run.send('TERM');
  t.equal((await run.done).code, 143);
});

t.test('kill sends a signal to the shell itself ($$) or to a background job ($!)', async (t) => {
  const clock = new ManualClock();
  t.same(await startShell(['sh', '-c', 'trap "echo caught; exit 7" USR1; kill -USR1 $$; sleep 10'], { clock }).done, { code: 7, out: 'caught\n', err: '' });
  t.same(await startShell(['sh', '-c', 'sleep 1000 & kill $!; wait $!; echo $?'], { clock }).done, { code: 0, out: '143\n', err: '' });
  t.match(await startShell(['sh', '-c', 'kill 99'], { clock }).done, { code: 1, err: /No such process/ });
});

t.test('sleep infinity & wait: a trapped TERM interrupts the wait, as graceful servers are written', async (t) => {
  const clock = new ManualClock();
  const run = startShell(['sh', '-c', 'trap "echo draining; exit 0" TERM; sleep infinity & wait'], { clock });
  await settle();
  run.send('TERM');
  t.same(await run.done, { code: 0, out: 'draining\n', err: '' });
});

t.test('an EXIT trap runs when the script ends', async (t) => {
  t.same(await startShell(['sh', '-c', 'trap "echo cleanup" EXIT; echo work; exit 3']).done, { code: 3, out: 'work\ncleanup\n', err: '' });
});

t.test('the hard kill (the AbortSignal) rejects the run with its reason, whatever the traps', async (t) => {
  const clock = new ManualClock();
  const stop = new AbortController();
  const run = startShell(['sh', '-c', 'trap "echo no" TERM; sleep infinity'], { clock, signal: stop.signal });
  await settle();
  stop.abort(new Error('killed'));
  await t.rejects(run.done, /killed/);
});
