/**
 * What another user of the node does while a hostile client works on it: `kubectl exec`,
 * `kubectl port-forward` and `kubectl top` through the host API server, as the cluster admin (the
 * API server reaches the kubelet API with its own kubelet client certificate, not the attacker's
 * identity). Each check reports what happened instead of throwing, so a case can say which of
 * them failed and with what message; `probeWhile` repeats one until told to stop.
 */
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import type { ClusterAccess } from '../../src/harness/clusterAccess.js';
import { errorMessage } from '../../src/lib/errorMessage.js';

export type ServiceName = 'exec' | 'port-forward' | 'top';

export interface CheckResult {
  readonly check: ServiceName;
  readonly pod: string;
  readonly ok: boolean;
  /** The output when it worked, kubectl's error when it did not. */
  readonly detail: string;
}

export interface PodRef {
  readonly namespace: string;
  readonly pod: string;
}

const firstLine = (text: string): string => text.trim().split('\n').filter((l) => l.trim() !== '').slice(-2).join(' | ').slice(0, 300);

export async function execCheck(host: ClusterAccess, at: PodRef): Promise<CheckResult> {
  try {
    const out = await host.kubectl(['exec', at.pod, '-n', at.namespace, '--', 'echo', 'alive'], { timeoutMs: 30_000 });
    return { check: 'exec', pod: at.pod, ok: out === 'alive\n', detail: out.trim() };
  } catch (error) {
    return { check: 'exec', pod: at.pod, ok: false, detail: firstLine(errorMessage(error)) };
  }
}

/** A GET to a loopback port (a `kubectl port-forward`'s local end), its status and body. */
export function httpGet(port: number, path: string, timeoutMs = 20_000): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false, timeout: timeoutMs }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${path} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

/** `kubectl port-forward pod :port`, one HTTP GET through it (the simulated pod answers), then stopped. */
export async function portForwardCheck(host: ClusterAccess, at: PodRef, port: number): Promise<CheckResult> {
  const { kubectlPath } = host.describe();
  const child = spawn(kubectlPath, [`--kubeconfig=${host.kubeconfigPath}`, 'port-forward', '-n', at.namespace, `pod/${at.pod}`, `:${port}`], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const fail = (detail: string): CheckResult => ({ check: 'port-forward', pod: at.pod, ok: false, detail: firstLine(detail) });
  try {
    const deadline = Date.now() + 30_000;
    let local: number | undefined;
    while (local === undefined) {
      local = Number(/Forwarding from 127\.0\.0\.1:(\d+)/.exec(out)?.[1]) || undefined;
      if (local !== undefined) break;
      if (child.exitCode !== null) return fail(`kubectl port-forward exited ${child.exitCode}: ${err}`);
      if (Date.now() > deadline) return fail(`kubectl port-forward did not listen within 30 s: ${err}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const answer = await httpGet(local, '/hostile-check');
    const ok = answer.status === 200 && answer.body.includes('GET /hostile-check');
    return ok ? { check: 'port-forward', pod: at.pod, ok, detail: `HTTP ${answer.status}` } : fail(`HTTP ${answer.status}: ${answer.body} ${err}`);
  } catch (error) {
    return fail(`${errorMessage(error)} ${err}`);
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

/** `kubectl top pod`: metrics-server's scrape of the kubelet API, as the Metrics API serves it. */
export async function topCheck(host: ClusterAccess, at: PodRef): Promise<CheckResult> {
  try {
    const out = await host.kubectl(['top', 'pod', at.pod, '-n', at.namespace], { timeoutMs: 30_000 });
    const row = out.split('\n').find((l) => l.startsWith(`${at.pod} `));
    return { check: 'top', pod: at.pod, ok: row !== undefined && /\d+m\s+\d+Mi/.test(row), detail: (row ?? out).trim() };
  } catch (error) {
    return { check: 'top', pod: at.pod, ok: false, detail: firstLine(errorMessage(error)) };
  }
}

/** Runs `check` again and again until `stop` resolves; at least once. */
export async function probeWhile(stop: Promise<unknown>, check: () => Promise<CheckResult>): Promise<CheckResult[]> {
  let stopped = false;
  const mark = (): void => void (stopped = true);
  stop.then(mark, mark);
  const results: CheckResult[] = [];
  do results.push(await check());
  while (!stopped);
  return results;
}
