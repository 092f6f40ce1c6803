/** date on the injected clock, hostname, sleep's arguments, expr, true/false, stty, tar. */
import t from 'tap';
import { formatDate } from '../../../../src/providers/simulated/shell/systemBuiltins.js';
import { ManualClock } from '../../../support/manualClock.js';
import { sh } from '../../../support/shell.js';

const AT = Date.UTC(2026, 11, 2, 23, 5, 9, 250);

t.test('date prints the injected clock in UTC; +%s is its seconds', async (t) => {
  const clock = new ManualClock(AT);
  t.equal((await sh('date', { clock })).out, 'Wed Dec  2 23:05:09 UTC 2026\n');
  t.equal((await sh('date +%s', { clock })).out, `${Math.floor(AT / 1000)}\n`);
  t.equal((await sh('date -u "+%F %T %j %N"', { clock })).out, '2026-12-02 23:05:09 336 250000000\n');
  t.equal((await sh('date -Iseconds', { clock })).out, '2026-12-02T23:05:09+00:00\n');
  t.equal(formatDate(AT, '%Y%m%d%H%M%S %% %q'), '20261202230509 % %q', 'an unknown directive stays as it is');
  const unsupported = await sh('date -d yesterday');
  t.equal(unsupported.code, 2, 'an option the simulated date lacks: status 2 in an exec (a container fails to start)');
  t.match(unsupported.err, /date: option '-d' is not supported by the simulated shell/);
});

t.test('hostname is the pod\'s; true, false and : give their statuses', async (t) => {
  t.equal((await sh('hostname')).out, 'web\n');
  t.equal((await sh('true && : && false')).code, 1);
});

t.test('sleep takes seconds, suffixes and sums, and refuses anything else', async (t) => {
  const clock = new ManualClock();
  const run = sh('sleep 1m 0.5; echo woke', { clock });
  for (let i = 0; i < 20; i++) await new Promise<void>((r) => setImmediate(r));
  clock.advance(60_500);
  t.equal((await run).out, 'woke\n');
  t.same(await sh('sleep soon'), { code: 1, out: '', err: "sleep: invalid number 'soon'\n" });
});

t.test('expr does integer arithmetic and comparisons', async (t) => {
  t.equal((await sh('expr 2 + 3; expr 7 / 2; expr 1 = 2')).out, '5\n3\n0\n');
  t.equal((await sh('expr 1 - 1')).code, 1, 'a zero result is status 1');
});

t.test('stty size needs a terminal; tar is not there, so kubectl cp says so', async (t) => {
  t.equal((await sh('stty size')).code, 1);
  t.match(await sh('tar cf - /etc'), { code: 127, err: /no tar, so kubectl cp cannot copy files/ });
});
