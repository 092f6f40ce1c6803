/** A simulated container's env and files, resolved as the kubelet resolves them. */
import t from 'tap';
import type { Pod } from '../../../src/adapters/kubernetes/model.js';
import { staticConfigSource } from '../../../src/providers/simulated/configSource.js';
import { containerView } from '../../../src/providers/simulated/containerView.js';

const source = staticConfigSource({
  configMaps: { 'shop/cfg': { color: 'blue', 'app.conf': 'port=8080\n' } },
  secrets: { 'shop/creds': { password: 's3cret' } },
});

function pod(container: Record<string, unknown>, volumes: unknown[] = []): Pod {
  return {
    metadata: { name: 'web', namespace: 'shop', uid: 'u1', labels: { app: 'web' } },
    spec: { nodeName: 'vk-1', containers: [{ name: 'app', image: 'x', ...container }], volumes },
    status: { podIP: '10.244.0.5' },
  } as Pod;
}

t.test('env: values with $(VAR), ConfigMap and Secret keys, pod fields, envFrom with prefix', async (t) => {
  const view = await containerView(pod({
    envFrom: [{ configMapRef: { name: 'cfg' }, prefix: 'CFG_' }, { secretRef: { name: 'absent', optional: true } }],
    env: [
      { name: 'A', value: 'x' },
      { name: 'B', value: '$(A)-y-$$(A)' },
      { name: 'PASS', valueFrom: { secretKeyRef: { name: 'creds', key: 'password' } } },
      { name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
      { name: 'IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
      { name: 'OPT', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'nope', optional: true } } },
    ],
  }), 'app', source);
  t.equal(view.env.get('CFG_color'), 'blue');
  t.equal(view.env.get('B'), 'x-y-$(A)');
  t.equal(view.env.get('PASS'), 's3cret');
  t.equal(view.env.get('NODE'), 'vk-1');
  t.equal(view.env.get('IP'), '10.244.0.5');
  t.equal(view.env.has('OPT'), false, 'a missing optional key is left out');
  t.equal(view.env.get('HOSTNAME'), 'web');
});

t.test('files: ConfigMap, Secret (items), downward API and projected volumes at their mount paths; subPath', async (t) => {
  const view = await containerView(pod({
    volumeMounts: [
      { name: 'cfg', mountPath: '/etc/cfg' },
      { name: 'creds', mountPath: '/var/run/creds' },
      { name: 'info', mountPath: '/etc/podinfo' },
      { name: 'all', mountPath: '/projected' },
      { name: 'cfg', mountPath: '/app.conf', subPath: 'app.conf' },
    ],
  }, [
    { name: 'cfg', configMap: { name: 'cfg' } },
    { name: 'creds', secret: { secretName: 'creds', items: [{ key: 'password', path: 'pw' }] } },
    { name: 'info', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }, { path: 'name', fieldRef: { fieldPath: 'metadata.name' } }] } },
    { name: 'all', projected: { sources: [{ configMap: { name: 'cfg', items: [{ key: 'color', path: 'c' }] } }, { secret: { name: 'gone', optional: true } }] } },
  ]), 'app', source);
  t.equal(view.files.get('/etc/cfg/color'), 'blue');
  t.equal(view.files.get('/etc/cfg/app.conf'), 'port=8080\n');
  t.equal(view.files.get('/var/run/creds/pw'), 's3cret');
  t.equal(view.files.get('/etc/podinfo/labels'), 'app="web"');
  t.equal(view.files.get('/etc/podinfo/name'), 'web');
  t.equal(view.files.get('/projected/c'), 'blue');
  t.equal(view.files.get('/app.conf'), 'port=8080\n');
});

t.test('a missing mandatory ConfigMap, Secret or key is an error naming it and where', async (t) => {
  await t.rejects(containerView(pod({ envFrom: [{ configMapRef: { name: 'absent' } }] }), 'app', source), /configmap "absent" not found \(envFrom of container "app"\)/);
  await t.rejects(containerView(pod({ env: [{ name: 'P', valueFrom: { secretKeyRef: { name: 'creds', key: 'user' } } }] }), 'app', source), /couldn't find key user in Secret shop\/creds/);
  await t.rejects(containerView(pod({ volumeMounts: [{ name: 'v', mountPath: '/v' }] }, [{ name: 'v', secret: { secretName: 'gone' } }]), 'app', source), /secret "gone" not found \(volume "v"\)/);
});
