/**
 * The orphan sweep reads the remote pods that may reference a copy page by page: at 10,000 pods
 * one unpaged list was ~40 MB held at once, and timed out at the list deadline on a busy API
 * server, so the sweep never finished. A fake remote that pages as the API server does.
 */
import t from 'tap';
import type { ClusterClient } from '../../../../src/adapters/kubernetes/clusterClient.js';
import type { Operation } from '../../../../src/adapters/kubernetes/operation.js';
import { OrphanSweep } from '../../../../src/providers/kubernetes/configReflection/orphanSweep.js';
import { remoteCopy, type HostObject } from '../../../../src/providers/kubernetes/configReflection/reflectedObject.js';
import { ManualClock } from '../../../support/manualClock.js';
import { asCalled, silentLog } from './configMapWorld.js';
import { pagedList } from '../../../support/pagedList.js';

const copyOf = (name: string): HostObject => {
  const copy = remoteCopy('ConfigMap', { metadata: { name, namespace: 'shop' }, data: {} }, 'shop-home', 'home');
  return { ...copy, metadata: { ...copy.metadata, uid: `c-${name}`, resourceVersion: '10', creationTimestamp: new Date(0) } };
};
const podUsing = (i: number, configMap: string): object => ({
  metadata: { name: `p${i}`, namespace: 'shop-home' },
  spec: { containers: [{ name: 'c', image: 'i' }], volumes: [{ name: 'v', configMap: { name: configMap } }] },
});

t.test('the sweep reads the remote pods page by page, and keeps a copy only a pod of a later page references', async (t) => {
  const pods = [...Array.from({ length: 1_200 }, (_, i) => podUsing(i, 'used-early')), podUsing(1_200, 'used-late')];
  const { asks: lists, list } = pagedList(pods);
  const core = {
    listConfigMapForAllNamespaces: async () => ({ items: [copyOf('used-early'), copyOf('used-late'), copyOf('unused')] }),
    listSecretForAllNamespaces: async () => ({ items: [] }),
    listNamespacedPod: list,
  };
  const remote = { call: (_p: string, op: Operation, fn: (c: typeof core, o: object) => Promise<unknown>) => asCalled(op, () => fn(core, {})) } as unknown as ClusterClient;
  const sweep = new OrphanSweep({ remote, hostClusterId: 'home', remoteNamespaceOf: (ns) => `${ns}-home`, clock: new ManualClock(), log: silentLog as never, minAgeMs: 0 });
  const deleted: string[] = [];
  await sweep.run(new AbortController().signal, async (_kind, namespace, name) => void deleted.push(`${namespace}/${name}`));
  t.ok(lists.length > 1 && lists.every((l) => l.limit !== undefined && l.limit <= 500), `every list is a page of at most 500 (${JSON.stringify(lists.map((l) => l.limit))})`);
  t.same(lists.slice(1).map((l) => l.continue), lists.slice(1).map((_, i) => String(500 * (i + 1))), 'each page continues where the last ended');
  t.same(deleted, ['shop-home/unused'], 'only the copy no pod references is swept');
});
