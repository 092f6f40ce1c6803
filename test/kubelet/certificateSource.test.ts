/**
 * The watcher of the certificate files, on a ManualClock: the first load refuses what cannot be
 * served, naming the setting; a directory event asks for one check a settle time later; the
 * period has a floor; checks asked together are joined and run again; stop leaves nothing behind.
 * One test uses the real fs.watch on a Secret-volume layout, the way cert-manager's rotations land.
 */
import { dirname, join } from 'node:path';
import t, { type Test } from 'tap';
import { jsonLogger } from '../../src/adapters/logger.js';
import type { Clock } from '../../src/lib/clock.js';
import { watchCertificateFiles, type DirectoryWatch } from '../../src/kubelet/certificateSource.js';
import { ManualClock } from '../support/manualClock.js';
import { certificateKit, CheckOutcomes, fingerprint, SecretVolume, type CertificateKit } from '../support/rotatingCertificates.js';
import { waitFor } from '../harness/waitFor.js';

let kitOnce: Promise<CertificateKit> | undefined;

/** The test's directory (t.testdir() empties it on each call, so it is called once): the kit, a volume with A's files. */
async function volumeWithA(t: Test): Promise<{ dir: string; kit: CertificateKit; volume: SecretVolume; files: { certFile: string; keyFile: string; clientCAFile: string } }> {
  const dir = t.testdir();
  kitOnce ??= certificateKit(join(dir, 'kit'));
  const kit = await kitOnce;
  const volume = new SecretVolume(join(dir, 'volume'));
  await volume.write({ 'tls.crt': kit.servingA.cert, 'tls.key': kit.servingA.key, 'ca.crt': kit.caA });
  return { dir, kit, volume, files: { certFile: volume.path('tls.crt'), keyFile: volume.path('tls.key'), clientCAFile: volume.path('ca.crt') } };
}

/** A DirectoryWatch the test fires by hand. */
function fakeWatch(): { watch: DirectoryWatch; directories: string[]; fire: () => void; open: () => number } {
  const watches: Array<{ onEvent: () => void; closed: boolean }> = [];
  const directories: string[] = [];
  return {
    watch: (directory, onEvent) => {
      const entry = { onEvent, closed: false };
      watches.push(entry);
      directories.push(directory);
      return { close: () => (entry.closed = true) };
    },
    directories,
    fire: () => watches.forEach((w) => !w.closed && w.onEvent()),
    open: () => watches.filter((w) => !w.closed).length,
  };
}

void t.test('the first load refuses files that cannot be served with, naming the setting, the file and the problem', async (t) => {
  const { volume, files } = await volumeWithA(t);
  const clock = new ManualClock();
  await t.rejects(watchCertificateFiles({ certFile: '/nonexistent/tls.crt', keyFile: '/nonexistent/tls.key' }, { clock, settingPrefix: 'kubeletApi.' }),
    /^kubeletApi\.certFile\/keyFile \/nonexistent\/tls\.crt, \/nonexistent\/tls\.key cannot be used: \/nonexistent\/tls\.crt cannot be read \(ENOENT/);
  await t.rejects(watchCertificateFiles({ certFile: files.certFile }, { clock, settingPrefix: 'kubeletApi.' }), /certFile and keyFile go together/);
  await t.rejects(watchCertificateFiles({ clientCAFile: volume.path('tls.key') }, { clock, settingPrefix: 'kubeletApi.' }), /^kubeletApi\.clientCAFile .*tls\.key cannot be used: .*holds no PEM certificate/);
  t.equal(clock.pendingTimers, 0, 'a refused load leaves no timer');
});

void t.test('a directory event asks for one check a settle time later, before the period comes', async (t) => {
  const { kit, volume, files } = await volumeWithA(t);
  const clock = new ManualClock();
  const watch = fakeWatch();
  const outcomes = new CheckOutcomes();
  const source = await watchCertificateFiles(files, { clock, watchDirectory: watch.watch, onCheck: outcomes.onCheck });
  t.teardown(() => source.stop());
  t.same(watch.directories, [volume.dir], 'each directory watched once');

  await volume.write({ 'tls.crt': kit.servingB.cert, 'tls.key': kit.servingB.key, 'ca.crt': kit.caB });
  watch.fire();
  watch.fire();
  watch.fire();
  t.equal(clock.pendingTimers, 2, 'the period and one settle timer for the burst');
  clock.advance(999);
  t.equal(fingerprint(source.current().serving?.cert ?? ''), fingerprint(kit.servingA.cert), 'not read before the settle time');
  clock.advance(1);
  t.equal((await outcomes.next()).kind, 'reloaded');
  t.equal(fingerprint(source.current().serving?.cert ?? ''), fingerprint(kit.servingB.cert));
  t.equal(source.current().clientCA, kit.caB);
  t.equal(clock.pendingTimers, 1, 'only the period waits');
});

void t.test('checks asked while one runs are joined into one more, so a write during a read is not missed', async (t) => {
  const { kit, volume, files } = await volumeWithA(t);
  const outcomes = new CheckOutcomes();
  const source = await watchCertificateFiles(files, { clock: new ManualClock(), watchDirectory: fakeWatch().watch, onCheck: outcomes.onCheck });
  t.teardown(() => source.stop());
  await volume.write({ 'tls.crt': kit.servingB.cert, 'tls.key': kit.servingB.key, 'ca.crt': kit.caA });
  const checks = [source.check(), source.check(), source.check()];
  t.equal(checks[1], checks[0], 'joined');
  t.equal(checks[2], checks[0], 'joined');
  t.same((await Promise.all(checks)).map((o) => o.kind), ['unchanged', 'unchanged', 'unchanged'], 'the last run found nothing new');
  t.equal((await outcomes.next()).kind, 'reloaded', 'the first run reloaded');
  t.equal((await outcomes.next()).kind, 'unchanged', 'one more run for the joined ones');
});

void t.test('the period is 60 s by default and never under 1 s', async (t) => {
  const { files } = await volumeWithA(t);
  for (const [asked, expected] of [[undefined, 60_000], [10, 1_000], [5_000, 5_000]] as const) {
    const manual = new ManualClock();
    const delays: number[] = [];
    const clock: Clock = { now: () => manual.now(), setTimer: (ms, fn) => (delays.push(ms), manual.setTimer(ms, fn)) };
    const source = await watchCertificateFiles(files, { clock, watchDirectory: fakeWatch().watch, ...(asked !== undefined ? { checkIntervalMs: asked } : {}) });
    await source.stop();
    t.same(delays, [expected], `asked ${String(asked)}`);
  }
});

void t.test('stop cancels the period and a pending settle, closes every watch, and later checks answer stopped', async (t) => {
  const { dir, kit, files } = await volumeWithA(t);
  const caVolume = new SecretVolume(join(dir, 'ca'));
  await caVolume.write({ 'ca.crt': kit.caB });
  const clock = new ManualClock();
  const watch = fakeWatch();
  const source = await watchCertificateFiles({ ...files, clientCAFile: caVolume.path('ca.crt') }, { clock, watchDirectory: watch.watch });
  t.equal(watch.open(), 2, 'the two directories watched');
  watch.fire();
  t.equal(clock.pendingTimers, 2);
  t.equal(await source.stop(), 'clean');
  t.equal(await source.stop(), 'clean', 'stop is idempotent');
  t.equal(clock.pendingTimers, 0, 'no timer left');
  t.equal(watch.open(), 0, 'no watch left open');
  t.same(await source.check(), { kind: 'stopped' });
});

void t.test('a directory watch that throws on close is logged; stop still answers clean and closes the others', async (t) => {
  const { dir, kit, files } = await volumeWithA(t);
  const caVolume = new SecretVolume(join(dir, 'ca'));
  await caVolume.write({ 'ca.crt': kit.caB });
  const warnings: string[] = [];
  let closed = 0;
  const watchDirectory: DirectoryWatch = (directory) => ({
    close: () => {
      if (directory === dirname(files.certFile)) throw new Error('EBADF');
      closed += 1;
    },
  });
  const source = await watchCertificateFiles({ ...files, clientCAFile: caVolume.path('ca.crt') }, {
    clock: new ManualClock(), watchDirectory, logger: jsonLogger('warn', (line) => warnings.push((JSON.parse(line) as { msg: string }).msg)),
  });
  t.equal(await source.stop(), 'clean');
  t.equal(closed, 1, 'the other directory watch is closed');
  t.same(warnings, ['closing a certificate directory watch failed']);
  await source.done;
});

void t.test('with the default fs.watch, a Secret volume rotation is read a settle time after it lands', async (t) => {
  const { kit, volume, files } = await volumeWithA(t);
  const clock = new ManualClock();
  const outcomes = new CheckOutcomes();
  const source = await watchCertificateFiles(files, { clock, onCheck: outcomes.onCheck });
  t.teardown(() => source.stop());
  await volume.write({ 'tls.crt': kit.servingB.cert, 'tls.key': kit.servingB.key, 'ca.crt': kit.caA });
  await waitFor('the directory event', () => clock.pendingTimers === 2, { timeoutMs: 5_000, intervalMs: 5 });
  clock.advance(1_000);
  t.equal((await outcomes.next()).kind, 'reloaded');
  t.equal(fingerprint(source.current().serving?.cert ?? ''), fingerprint(kit.servingB.cert));
});
