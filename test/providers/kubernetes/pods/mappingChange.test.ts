/**
 * A change of namespaceStrategy or hostClusterId seen at start (pods/mappingChange.ts): the remote
 * pods of the virtual node's running host pods that the configured mapping would no longer find
 * are stranded; with any, the node refuses to start with one error naming both mappings, or adopts
 * the old mapping when told to. Pods of other host clusters, of gone or finished host pods, or
 * under the configured mapping are nobody's concern.
 */
import t from 'tap';
import type { Pod } from '../../../../src/adapters/kubernetes/model.js';
import { mappingFindings, strandedPods } from '../../../../src/providers/kubernetes/pods/mappingChange.js';
import { toRemotePod } from '../../../../src/providers/kubernetes/pods/podTranslation.js';
import { remoteNamespaceFor, type NamespaceStrategy } from '../../../../src/providers/kubernetes/namespaceMapping.js';
import type { Mapping } from '../../../../src/providers/kubernetes/startFindings.js';

const hostPod = (name: string, uid: string, phase = 'Running'): Pod => ({
  metadata: { namespace: 'shop', name, uid }, spec: { nodeName: 'vk', containers: [{ name: 'c', image: 'i' }] }, status: { phase },
});
/** The remote pod Tether made for `host` under `mapping` (as podTranslation does). */
const placed = (host: Pod, mapping: Mapping, marked = true): Pod => {
  const remote = toRemotePod(host, {
    hostClusterId: mapping.hostClusterId, nodeName: 'vk', remoteNamespace: remoteNamespaceFor('shop', mapping.namespaceStrategy, mapping.hostClusterId),
    ...(marked ? { namespaceStrategy: mapping.namespaceStrategy } : {}),
  });
  return remote;
};
const m = (namespaceStrategy: NamespaceStrategy, hostClusterId = 'home'): Mapping => ({ namespaceStrategy, hostClusterId });

void t.test('remote pods made under the configured mapping, or for gone or finished host pods, are not stranded', async (t) => {
  const web = hostPod('web-1', 'u1');
  t.same(strandedPods(m('suffix'), [placed(web, m('suffix'))], [web]), [], 'same mapping');
  t.same(strandedPods(m('same-name'), [placed(web, m('suffix'))], []), [], 'no host pod: nothing to lose');
  t.same(strandedPods(m('same-name'), [placed(hostPod('web-1', 'u1', 'Succeeded'), m('suffix'))], [hostPod('web-1', 'u1', 'Succeeded')]), [], 'finished');
  t.same(strandedPods(m('same-name'), [placed(web, m('suffix'))], [hostPod('web-1', 'u-other')]), [], 'a host pod of that name but another uid (another host cluster\'s, say)');
});

void t.test('a changed namespaceStrategy or hostClusterId strands the running pods; the marks (or, unmarked, the namespace) say what placed them', async (t) => {
  const web = hostPod('web-1', 'u1');
  t.same(strandedPods(m('same-name'), [placed(web, m('suffix'))], [web]), [{ host: 'shop/web-1', remote: 'shop-home/web-1', was: m('suffix') }]);
  t.same(strandedPods(m('suffix', 'newid'), [placed(web, m('suffix'))], [web]), [{ host: 'shop/web-1', remote: 'shop-home/web-1', was: m('suffix') }], 'hostClusterId changed');
  t.same(strandedPods(m('suffix'), [placed(web, m('same-name'), false)], [web]), [{ host: 'shop/web-1', remote: 'shop/web-1', was: m('same-name') }], 'a pod from before the mark: judged by its namespace');
});

void t.test('stranded pods refuse the node with one error, or adopt the one old mapping they share', async (t) => {
  const stranded = [{ host: 'shop/web-1', remote: 'shop-home/web-1', was: m('suffix') }, { host: 'shop/web-2', remote: 'shop-home/web-2', was: m('suffix') }];
  const refused = mappingFindings('vk', m('same-name'), stranded, 'refuse');
  t.equal(refused.length, 1);
  t.match(refused[0], {
    level: 'refuse',
    message: /^node vk: 2 running host pods \(e\.g\. shop\/web-1, remote pod shop-home\/web-1\) were offloaded under namespaceStrategy suffix and hostClusterId home, but the config says namespaceStrategy same-name and hostClusterId home: starting would turn them Failed .*provider\.namespaceStrategy and provider\.hostClusterId back.*provider\.mappingChange: adopt/,
  });
  t.match(mappingFindings('vk', m('same-name'), stranded, 'adopt'), [{ level: 'adopt', mapping: m('suffix'), message: /adopting: the node runs under namespaceStrategy suffix/ }]);
  const mixed = [...stranded, { host: 'shop/web-3', remote: 'shop/web-3', was: m('same-name', 'old') }];
  t.match(mappingFindings('vk', m('suffix', 'x'), mixed, 'adopt'), [{ level: 'refuse', message: /needs one known old mapping/ }], 'two old mappings: nothing to adopt');
  t.same(mappingFindings('vk', m('suffix'), [], 'refuse'), [], 'nothing stranded: nothing to say');
});
