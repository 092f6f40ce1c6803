/**
 * A FakeProvider with the LifecycleHookProvider capability, for whole-node scenarios of the hooks
 * Tether passes on: it records every hook run, kill and postStart word (with its time), answers a
 * hook as the test scripted it (`failHook`: rejects `transient`; default: succeeds at once), and
 * `report`s any status the test gives (a sidecar's run, a kill's new run).
 */
import type { PodStatus } from '../../src/adapters/kubernetes/model.js';
import type { LifecycleHookName, LifecycleHookProvider } from '../../src/providers/containerDuties.js';
import { transient } from '../../src/providers/errors.js';
import { FakeProvider } from './fakeProvider.js';

export type HookCall =
  | { readonly op: 'runLifecycleHook'; readonly container: string; readonly hook: LifecycleHookName; readonly at: number }
  | { readonly op: 'killContainer'; readonly container: string; readonly graceSeconds: number; readonly at: number }
  | { readonly op: 'postStartDone'; readonly container: string; readonly containerID: string; readonly at: number };

export class FakeHookProvider extends FakeProvider implements LifecycleHookProvider {
  readonly hookCalls: HookCall[] = [];
  private readonly failing = new Set<string>();

  /** The `hook` of `container` fails from now on. */
  failHook(container: string, hook: LifecycleHookName): void {
    this.failing.add(`${container}/${hook}`);
  }

  /** The pod's status is `status` now, as the backend reports it. */
  setStatus(namespace: string, name: string, status: PodStatus): void {
    this.report(namespace, name, () => structuredClone(status));
  }

  async runLifecycleHook(_namespace: string, _name: string, container: string, hook: LifecycleHookName): Promise<void> {
    this.hookCalls.push({ op: 'runLifecycleHook', container, hook, at: this.clock.now() });
    if (this.failing.has(`${container}/${hook}`)) throw transient(`${hook} hook of ${container} failed`);
  }

  async killContainer(_namespace: string, _name: string, container: string, graceSeconds: number): Promise<void> {
    this.hookCalls.push({ op: 'killContainer', container, graceSeconds, at: this.clock.now() });
  }

  async postStartDone(_namespace: string, _name: string, container: string, containerID: string): Promise<void> {
    this.hookCalls.push({ op: 'postStartDone', container, containerID, at: this.clock.now() });
  }
}
