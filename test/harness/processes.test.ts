import t from 'tap';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { groupAlive, readLogTail, startProcess, stopProcessGroup } from '../../src/harness/processes.js';
import { waitFor } from './waitFor.js';

void t.test('a component logs to its file, and stop() ends its whole process group', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'tether-proc-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const logPath = join(dir, 'c.log');
  // The shell forks a grandchild; killing the group must take it down too.
  const proc = startProcess({ name: 'c', command: 'bash', args: ['-c', 'echo started; echo oops >&2; sleep 300 & wait'], logPath });
  await waitFor('the log to show both streams', () => /started\noops/.test(readLogTail(logPath)));
  t.ok(proc.running);
  t.ok(groupAlive(proc.pid));
  const status = await proc.stop(2_000);
  t.equal(status.signal, 'SIGTERM');
  t.notOk(proc.running);
  await waitFor('the process group to be gone', () => !groupAlive(proc.pid));
  t.equal(proc.logTail(1), 'oops');
});

void t.test('a process that ignores SIGTERM is killed after the grace period', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'tether-proc-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const logPath = join(dir, 'stubborn.log');
  const proc = startProcess({ name: 'stubborn', command: 'bash', args: ['-c', "trap '' TERM; echo ready; while true; do sleep 0.1; done"], logPath });
  await waitFor('the trap to be installed', () => readLogTail(logPath).includes('ready'));
  t.equal((await proc.stop(300)).signal, 'SIGKILL');
});

void t.test('stopProcessGroup stops a group this process only knows by id', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'tether-proc-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const proc = startProcess({ name: 'other', command: 'sleep', args: ['300'], logPath: join(dir, 'other.log') });
  proc.release();
  await stopProcessGroup(proc.pid, 2_000);
  t.notOk(groupAlive(proc.pid));
  t.match(readLogTail(join(dir, 'missing.log')), /no log at/);
});
