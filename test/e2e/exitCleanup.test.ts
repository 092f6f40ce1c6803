/**
 * The harness's exit cleanup in a real process (test/harness/fixtures/spawnsAndWaits.ts): a
 * process interrupted by a signal takes the components it started with it. No cluster; here
 * because only a process shows it and one from source takes seconds to start.
 */
import t from 'tap';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { groupAlive } from '../../src/harness/processes.js';
import { waitFor } from '../harness/waitFor.js';

const fixture = fileURLToPath(new URL('../harness/fixtures/spawnsAndWaits.ts', import.meta.url));

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  void t.test(`a process interrupted by ${signal} takes its components with it`, async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'tether-exit-'));
    t.teardown(() => rm(dir, { recursive: true, force: true }));
    // Same loaders as this test process, so the fixture can be TypeScript.
    const parent = spawn(process.execPath, [...process.execArgv, fixture, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    parent.stdout.setEncoding('utf8');
    parent.stdout.on('data', (chunk: string) => (output += chunk));
    let exitSignal: NodeJS.Signals | null | undefined;
    parent.once('exit', (_code, sig) => (exitSignal = sig));
    t.teardown(() => parent.kill('SIGKILL')); // never leave the fixture behind, whatever happens
    const pid = await waitFor('the fixture to report its component', () => Number(output.trim()) || undefined, { timeoutMs: 30_000 });
    t.teardown(() => {
      if (groupAlive(pid)) process.kill(-pid, 'SIGKILL');
    });
    t.ok(groupAlive(pid));
    parent.kill(signal);
    await waitFor('the fixture to exit', () => exitSignal !== undefined, { timeoutMs: 10_000 });
    t.equal(exitSignal, signal, 'the fixture still dies of the signal');
    await waitFor('the component to be gone', () => !groupAlive(pid), { timeoutMs: 5_000 });
  });
}
