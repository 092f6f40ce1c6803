/**
 * `tether sandbox --down`: stops a sandbox from its state file. The owning `tether sandbox`
 * process is asked first (SIGTERM: it stops its Tethers and clusters); whatever it leaves, or
 * everything if it is already gone, is stopped by process group from the recorded pids. The
 * network namespaces are deleted, and the state directory removed.
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { groupAlive, stopProcessGroup } from '../harness/processes.js';
import { recordedPids, readState } from './state.js';

export interface DownResult {
  readonly found: boolean;
  /** Process groups that were still alive after the supervisor's own teardown and were killed. */
  readonly killed: number[];
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function sandboxDown(stateDir: string, progress: (line: string) => void, timeoutMs = 30_000): Promise<DownResult> {
  const state = readState(stateDir);
  if (!state) return { found: false, killed: [] };
  const supervisor = state.supervisorPid;
  if (supervisor !== process.pid && alive(supervisor)) {
    progress(`stopping the sandbox (pid ${supervisor})`);
    process.kill(supervisor, 'SIGTERM');
    const deadline = Date.now() + timeoutMs;
    while (alive(supervisor) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const killed: number[] = [];
  for (const pid of recordedPids(state).filter((p) => p !== process.pid)) {
    if (!groupAlive(pid) && !alive(pid)) continue;
    killed.push(pid);
    await stopProcessGroup(pid, 3_000);
    if (alive(pid)) process.kill(pid, 'SIGKILL');
  }
  for (const ns of state.netns ?? []) {
    try {
      execFileSync('ip', ['netns', 'del', ns], { stdio: 'ignore' });
    } catch {
      // already gone with its owner
    }
  }
  rmSync(stateDir, { recursive: true, force: true });
  return { found: true, killed };
}
