/**
 * What Tether last wrote for each reflected copy, and whether the copies' watch has shown that
 * write yet (what Kubernetes controllers call expectations). A copy is judged from the watches
 * (copyRepair.ts), but a watch that has not yet delivered Tether's own last write shows an older
 * copy, or none: judged then, every write would provoke a second one. Keyed by
 * `<kind>/<remote namespace>/<name>`; it is a memory of answers, not a queue: the reconcile
 * primitive (src/runtime/reconcilerActor.ts) decides what runs when.
 */
import { isOlder } from '../../../adapters/kubernetes/watchCache.js';

export interface WrittenCopy {
  /** contentDigest of what Tether wrote. */
  readonly desired: string;
  /** contentDigest of what the remote stored for it (an admission webhook may add to it). */
  readonly stored: string;
  /** The resourceVersion the write got ('' when unknown). */
  readonly version: string;
  /** The copies' watch has shown an event at or after `version`. */
  readonly echoed: boolean;
}

export class CopyLedger {
  private readonly entries = new Map<string, WrittenCopy>();

  /** A write was answered; `seen` is the resourceVersion the copies' watch holds for the copy now. */
  wrote(key: string, desired: string, stored: string, version: string, seen: string | undefined): void {
    // Its event may have come while the write was in flight; if not, what the watch holds is older.
    const echoed = version === '' || (seen !== undefined && !isOlder(seen, version));
    this.entries.set(key, { desired, stored, version, echoed });
  }

  /** The copies' watch delivered an event of the copy at `resourceVersion`. */
  observed(key: string, resourceVersion: string): void {
    const entry = this.entries.get(key);
    // An event from before Tether's last write (a deletion it has undone, say) is not its answer.
    if (entry && !entry.echoed && !isOlder(resourceVersion, entry.version)) this.entries.set(key, { ...entry, echoed: true });
  }

  /** The copies' watch (re)listed the copies whose keys start with `prefix`: its view is whole again. */
  relisted(prefix: string): void {
    for (const [key, entry] of this.entries) if (key.startsWith(prefix) && !entry.echoed) this.entries.set(key, { ...entry, echoed: true });
  }

  forget(key: string): void {
    this.entries.delete(key);
  }

  /** Whether Tether's last write of this copy carried `desiredDigest`. */
  lastWrote(key: string, desiredDigest: string): boolean {
    return this.entries.get(key)?.desired === desiredDigest;
  }

  /** What copyRepair needs about the last write, if it was of `desiredDigest` (else it says nothing). */
  judge(key: string, desiredDigest: string): { readonly stored?: string; readonly awaitingEcho: boolean } {
    const last = this.entries.get(key);
    // Only the content last written waits for its echo; a host that has moved on needs a write anyway.
    return last?.desired === desiredDigest ? { stored: last.stored, awaitingEcho: !last.echoed } : { awaitingEcho: false };
  }
}
