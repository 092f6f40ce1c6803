/**
 * Every renewal of one node's Lease, as the API server stores it: `kubectl get lease -w` in a
 * process of its own (so a busy test process misses none; the watch delivers each update), its
 * `spec.renewTime` values collected. `lag(from, to)` is the longest time in that window during
 * which the Lease was not renewed: the functional measure of "renewals stay on time" (a node whose
 * renewals are late by more than its lease duration is declared dead by the node lifecycle
 * controller), compared against the renew interval.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { ClusterAccess } from '../../src/harness/clusterAccess.js';

export class LeaseWatch {
  private readonly renewals: number[] = [];
  private child: ChildProcess | undefined;
  private stopped = false;

  constructor(private readonly cluster: ClusterAccess, readonly node: string, private readonly namespace = 'kube-node-lease') {
    this.watch();
  }

  private watch(): void {
    const { kubectlPath } = this.cluster.describe();
    const child = spawn(kubectlPath, [`--kubeconfig=${this.cluster.kubeconfigPath}`, 'get', 'lease', this.node, '-n', this.namespace,
      '--watch', '-o', 'jsonpath={.spec.renewTime}{"\\n"}'], { stdio: ['ignore', 'pipe', 'ignore'] });
    let partial = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        const at = Date.parse(line.trim());
        if (!Number.isNaN(at) && at !== this.renewals.at(-1)) this.renewals.push(at);
      }
    });
    // The API server ends watches now and then: start another.
    child.once('exit', () => {
      if (!this.stopped) setTimeout(() => this.watch(), 200).unref();
    });
    this.child = child;
  }

  /** The renewals seen so far (ms since the epoch, in order). */
  all(): readonly number[] {
    return this.renewals;
  }

  last(): number | undefined {
    return this.renewals.at(-1);
  }

  /** Resolves with the first renewal after `at`, or undefined once `timeoutMs` has passed without one. */
  async renewalAfter(at: number, timeoutMs: number): Promise<number | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.renewals.find((r) => r > at);
      if (found !== undefined || Date.now() >= deadline) return found;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /**
   * The longest stretch of [from, to] with no renewal: between consecutive renewals, from the last
   * renewal before `from`, and up to the first renewal after `to` (or `end` when none came).
   */
  lag(from: number, to: number, end: number): number {
    let previous = [...this.renewals].reverse().find((r) => r <= from) ?? from;
    let worst = 0;
    for (const r of this.renewals) {
      if (r <= previous) continue;
      worst = Math.max(worst, r - previous);
      previous = r;
      if (r > to) return worst;
    }
    return Math.max(worst, end - previous);
  }

  stop(): void {
    this.stopped = true;
    this.child?.kill('SIGTERM');
  }
}
