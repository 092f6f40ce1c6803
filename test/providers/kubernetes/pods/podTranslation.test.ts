/**
 * Host pod → remote pod, field by field: what is kept, what is dropped, what is rewritten, and
 * the ownership marks; and back to the host identity.
 */
import t from 'tap';
import type { Pod } from '../../../../src/adapters/kubernetes/model.js';
import { toHostPod } from '../../../../src/providers/kubernetes/pods/hostView.js';
import { toRemotePod } from '../../../../src/providers/kubernetes/pods/podTranslation.js';

const ctx = { hostClusterId: 'home', nodeName: 'vk-1', remoteNamespace: 'shop-home' };

function hostPod(): Pod {
  return {
    metadata: {
      name: 'web-1', namespace: 'shop', uid: 'host-uid-1', resourceVersion: '42',
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: 'rs', controller: true }],
      finalizers: ['x/y'],
      labels: { app: 'web', 'tether.dev/virtual-node': 'stale' },
      annotations: { note: 'kept', 'tether.dev/virtual-node': 'vk-1', 'tether.dev/host-uid': 'host-uid-1', 'tether.dev/provider-create-error': 'old' },
    },
    spec: {
      nodeName: 'vk-1', schedulerName: 'custom', priority: 1000, priorityClassName: 'high', preemptionPolicy: 'Never',
      nodeSelector: { type: 'virtual-kubelet' },
      affinity: { nodeAffinity: {} },
      serviceAccountName: 'app', serviceAccount: 'app',
      hostNetwork: true, readinessGates: [{ conditionType: 'x' }], schedulingGates: [{ name: 'g' }], runtimeClassName: 'kata',
      restartPolicy: 'OnFailure', terminationGracePeriodSeconds: 7, activeDeadlineSeconds: 600, dnsPolicy: 'None',
      dnsConfig: { nameservers: ['1.1.1.1'] }, hostAliases: [{ ip: '10.0.0.1', hostnames: ['db'] }],
      securityContext: { runAsUser: 1000 },
      topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'ScheduleAnyway' }],
      imagePullSecrets: [{ name: 'regcred' }],
      tolerations: [
        { key: 'virtual-kubelet.io/provider', operator: 'Exists', effect: 'NoSchedule' },
        { key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' },
      ],
      volumes: [
        { name: 'cfg', configMap: { name: 'app-config' } },
        { name: 'kube-api-access-abcde', projected: { sources: [{ serviceAccountToken: { path: 'token' } }, { configMap: { name: 'kube-root-ca.crt' } }] } },
      ],
      initContainers: [{ name: 'init', image: 'busybox', volumeMounts: [{ name: 'kube-api-access-abcde', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }] }],
      containers: [{
        name: 'app', image: 'nginx:1',
        env: [
          { name: 'NS', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
          { name: 'UID', valueFrom: { fieldRef: { fieldPath: 'metadata.uid' } } },
          { name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
          { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
        ],
        volumeMounts: [{ name: 'cfg', mountPath: '/cfg' }, { name: 'kube-api-access-abcde', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }],
      }],
    },
    status: { phase: 'Pending' },
  };
}

t.test('metadata: same name, mapped namespace, user labels and annotations, ownership marks', async (t) => {
  const remote = toRemotePod(hostPod(), ctx);
  t.equal(remote.metadata?.name, 'web-1');
  t.equal(remote.metadata?.namespace, 'shop-home');
  t.same(remote.metadata?.labels, {
    app: 'web', 'tether.dev/managed-by': 'tether', 'tether.dev/host-cluster': 'home', 'tether.dev/virtual-node': 'vk-1',
  });
  t.same(remote.metadata?.annotations, {
    note: 'kept', 'tether.dev/host-namespace': 'shop', 'tether.dev/host-name': 'web-1',
    'tether.dev/host-uid': 'host-uid-1', 'tether.dev/virtual-node': 'vk-1',
  });
  for (const dropped of ['uid', 'resourceVersion', 'ownerReferences', 'finalizers'] as const) {
    t.equal(remote.metadata?.[dropped], undefined, `metadata.${dropped} dropped`);
  }
  t.equal(remote.status, undefined, 'no status');
});

t.test('spec: kept fields', async (t) => {
  const host = hostPod();
  const spec = toRemotePod(host, ctx).spec!;
  for (const field of ['restartPolicy', 'terminationGracePeriodSeconds', 'activeDeadlineSeconds', 'dnsPolicy', 'dnsConfig',
    'hostAliases', 'securityContext', 'topologySpreadConstraints', 'imagePullSecrets'] as const) {
    t.same(spec[field], host.spec?.[field], `${field} kept`);
  }
  t.same(spec.volumes, [{ name: 'cfg', configMap: { name: 'app-config' } }], 'volumes kept except the service account token');
  t.same(spec.containers[0]?.volumeMounts, [{ name: 'cfg', mountPath: '/cfg' }], 'token mount removed');
  t.equal(spec.initContainers?.[0]?.volumeMounts, undefined, 'init container token mount removed');
});

t.test('spec: dropped fields and the service account', async (t) => {
  const spec = toRemotePod(hostPod(), ctx).spec!;
  for (const field of ['nodeName', 'schedulerName', 'priority', 'priorityClassName', 'preemptionPolicy', 'nodeSelector', 'affinity',
    'serviceAccountName', 'serviceAccount', 'hostNetwork', 'readinessGates', 'schedulingGates', 'runtimeClassName'] as const) {
    t.equal(spec[field], undefined, `${field} dropped`);
  }
  t.equal(spec.automountServiceAccountToken, false);
});

t.test('tolerations: Tether\'s own taint dropped, others kept, the offloading patch added', async (t) => {
  const patched = toRemotePod(hostPod(), {
    ...ctx, offloadingPatch: { nodeSelector: { pool: 'offload' }, tolerations: [{ key: 'offload', operator: 'Exists' }] },
  }).spec!;
  t.same(patched.tolerations, [
    { key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' },
    { key: 'offload', operator: 'Exists' },
  ]);
  t.same(patched.nodeSelector, { pool: 'offload' });
});

t.test('downward API env vars that would describe the remote pod take the host values', async (t) => {
  const env = toRemotePod(hostPod(), ctx).spec!.containers[0]?.env;
  t.same(env, [
    { name: 'NS', value: 'shop' },
    { name: 'UID', value: 'host-uid-1' },
    { name: 'NODE', value: 'vk-1' },
    { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
  ]);
});

t.test('the host pod is not modified', async (t) => {
  const host = hostPod();
  const before = JSON.stringify(host);
  toRemotePod(host, ctx);
  t.equal(JSON.stringify(host), before);
});

t.test('back to the host: identity from the marks, remote status, optional IP blanking', async (t) => {
  const remote = toRemotePod(hostPod(), ctx);
  remote.metadata = { ...remote.metadata, uid: 'remote-uid' };
  remote.status = { phase: 'Running', podIP: '10.1.2.3', podIPs: [{ ip: '10.1.2.3' }] };
  const back = toHostPod(remote)!;
  t.equal(back.metadata?.namespace, 'shop');
  t.equal(back.metadata?.name, 'web-1');
  t.equal(back.metadata?.uid, 'host-uid-1');
  t.equal(back.status?.podIP, '10.1.2.3');
  const blank = toHostPod(remote, { blankPodIPs: true })!;
  t.equal(blank.status?.podIP, undefined);
  t.equal(blank.status?.podIPs, undefined);
  t.equal(blank.status?.phase, 'Running');
  t.equal(toHostPod({ metadata: { name: 'stranger', namespace: 'x' } }), undefined, 'a pod without marks is not ours');
});
