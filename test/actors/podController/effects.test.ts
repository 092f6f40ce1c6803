/**
 * The orphan sweep's effects: the provider is listed light (identity and Tether's marks) when it
 * can be, in full and reduced when it cannot; an orphan is read again and deleted only if it still
 * carries the marks the sweep judged by.
 */
import t from 'tap';
import type { Pod } from '../../../src/adapters/kubernetes/model.js';
import type { PodWatch } from '../../../src/adapters/kubernetes/watch.js';
import { silentLogger } from '../../../src/adapters/logger.js';
import { hostUidMark, virtualNodeMark } from '../../../src/actors/pod/annotations.js';
import { performControllerEffect, type ControllerEffectDeps } from '../../../src/actors/podController/effects.js';
import type { ControllerEffect, ControllerMsg } from '../../../src/actors/podController/protocol.js';
import { podMarksOf, type PodMarks } from '../../../src/providers/podMarks.js';
import { transient } from '../../../src/providers/errors.js';
import type { PodProvider } from '../../../src/providers/provider.js';
import type { EffectContext } from '../../../src/runtime/behavior.js';
import type { Shards } from '../../../src/supervisors/shards.js';
import { ManualClock } from '../../support/manualClock.js';

const marked = (name: string, hostUid: string): Pod => ({
  metadata: { namespace: 'ns', name, uid: `remote-${name}`, annotations: { [virtualNodeMark]: 'vn', [hostUidMark]: hostUid, 'example.com/x': 'y' } },
  spec: { containers: [{ name: 'c', image: 'i' }] },
  status: { phase: 'Running' },
});

interface Calls { listPods: number; listPodMarks: number; deleted: string[] }

function provider(pods: Map<string, Pod>, calls: Calls, light: boolean): PodProvider {
  const base = {
    listPods: () => { calls.listPods++; return Promise.resolve([...pods.values()]); },
    getPod: (_ns: string, name: string) => Promise.resolve(pods.get(name)),
    deletePod: (pod: Pod) => { calls.deleted.push(pod.metadata?.name ?? ''); return Promise.resolve(); },
  };
  const lister = light ? { listPodMarks: () => { calls.listPodMarks++; return Promise.resolve([...pods.values()].map(podMarksOf)); } } : {};
  return { ...base, ...lister } as unknown as PodProvider;
}

async function run(deps: ControllerEffectDeps, effect: ControllerEffect): Promise<ControllerMsg[]> {
  const told: ControllerMsg[] = [];
  const clock = new ManualClock();
  const ctx: EffectContext<ControllerMsg> = { self: { path: 'pod-controller', tell: (m) => told.push(m) }, clock, signal: new AbortController().signal, schedule: () => {} };
  await performControllerEffect(deps, effect, ctx);
  return told;
}

function depsWith(p: PodProvider, hostPods: Pod[] = []): ControllerEffectDeps {
  const podWatch = { list: () => hostPods } as unknown as PodWatch;
  return { shards: {} as Shards, spawnPod: () => {}, provider: p, podWatch, logger: silentLogger };
}

t.test('the sweep lists light when the provider can, and reduces a full listing when it cannot', async (t) => {
  const pods = new Map([['a', marked('a', 'h1')]]);
  const expected: PodMarks[] = [{ namespace: 'ns', name: 'a', uid: 'remote-a', marks: { [virtualNodeMark]: 'vn', [hostUidMark]: 'h1' } }];
  const host: Pod = { metadata: { namespace: 'ns', name: 'a', uid: 'h1' } };
  for (const light of [true, false]) {
    const calls: Calls = { listPods: 0, listPodMarks: 0, deleted: [] };
    const told = await run(depsWith(provider(pods, calls, light), [host]), { type: 'list-provider' });
    t.same(told, [{ type: 'pods.provider-listed', pods: expected, hostUids: new Set(['h1']) }], `light=${light}: identities and Tether's marks only`);
    t.same([calls.listPodMarks, calls.listPods], light ? [1, 0] : [0, 1], light ? 'no full listing' : 'the full listing, reduced');
  }
});

t.test('an orphan is read again and deleted only while it carries the same marks', async (t) => {
  const calls: Calls = { listPods: 0, listPodMarks: 0, deleted: [] };
  const pods = new Map([['a', marked('a', 'h1')], ['b', marked('b', 'h2')]]);
  const deps = depsWith(provider(pods, calls, true));
  const orphanA = podMarksOf(marked('a', 'h1'));
  await run(deps, { type: 'delete-orphan', orphan: orphanA });
  t.same(calls.deleted, ['a'], 'the provider\'s own pod is deleted');

  pods.set('b', marked('b', 'h3')); // re-created for another host pod since the listing
  await run(deps, { type: 'delete-orphan', orphan: podMarksOf(marked('b', 'h2')) });
  pods.delete('a');
  await run(deps, { type: 'delete-orphan', orphan: orphanA });
  t.same(calls.deleted, ['a'], 'neither a pod marked for another host pod since, nor one already gone');
});

t.test('a classified provider failure in the sweep is a message; anything else rejects the effect (a crash)', async (t) => {
  const failing = (error: Error): PodProvider => ({
    listPods: () => Promise.reject(error),
    getPod: () => Promise.reject(error),
    deletePod: () => Promise.reject(error),
  }) as unknown as PodProvider;
  const orphan = podMarksOf(marked('a', 'h1'));

  const expected = depsWith(failing(transient('remote API unavailable')));
  t.match(await run(expected, { type: 'list-provider' }), [{ type: 'pods.provider-list-failed', message: 'remote API unavailable' }]);
  t.match(await run(expected, { type: 'delete-orphan', orphan }), [{ type: 'pods.orphan-delete-failed', pod: 'ns/a', message: 'remote API unavailable' }]);

  const bug = depsWith(failing(new TypeError('cannot read properties of undefined')));
  await t.rejects(run(bug, { type: 'list-provider' }), TypeError, 'a provider bug in the listing is not swallowed');
  await t.rejects(run(bug, { type: 'delete-orphan', orphan }), TypeError, 'nor in an orphan delete');
});
