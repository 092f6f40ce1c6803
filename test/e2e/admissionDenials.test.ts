/**
 * On the standing remote cluster's real API server: each way admission (and RBAC) refuses a pod
 * create is named by the adapter (`KubeApiError.denial`), and the Kubernetes provider turns it
 * into the class the pod actor acts on: a check that judges the pod is a rejection
 * (invalid-input), an exhausted quota and RBAC may clear (transient). The same answers are the
 * unit fixtures (test/adapters/kubernetes/fixtures/admissionDenials.json). A ValidatingAdmissionPolicy
 * refuses with 422 Invalid, which the status alone classes (invalid-input).
 */
import t from 'tap';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { KubeApiError, translateErrors } from '../../src/adapters/kubernetes/errors.js';
import { providerKindOf } from '../../src/providers/errors.js';
import { toProviderError } from '../../src/providers/kubernetes/remoteErrors.js';
import { testNamespace, useSharedClusters } from '../harness/sharedClusters.js';

const pod = (container: Record<string, unknown> = {}): V1Pod => ({
  metadata: { name: 'web' },
  spec: { containers: [{ name: 'app', image: 'busybox', ...container }] },
});

/**
 * The create's refusal as the adapter classifies it. The admission plugins read the namespace,
 * quota and LimitRange from informers that may not have seen a just-made change: until they have,
 * the pod is admitted (then deleted) or the quota's usage is unknown, and the create is asked again.
 */
async function refusal(core: CoreV1Api, namespace: string, body: V1Pod): Promise<KubeApiError> {
  for (let attempt = 1; ; attempt++) {
    const err = await translateErrors(`create pod ${namespace}/web`, () => core.createNamespacedPod({ namespace, body })).then(
      () => undefined,
      (e: unknown) => e,
    );
    if (err !== undefined && !(err instanceof KubeApiError)) throw err;
    // "status unknown for quota" is a 403 no check is named for: not yet the answer awaited.
    if ((err !== undefined && (err.status !== 403 || err.denial !== undefined)) || attempt === 100) return err ?? new KubeApiError({ kind: undefined, message: 'admitted every time' }, 'create pod');
    if (err === undefined) await core.deleteNamespacedPod({ namespace, name: 'web', gracePeriodSeconds: 0 });
    else await core.readNamespace({ name: namespace }); // one round trip for the informers to catch up
  }
}

t.test('each real admission and RBAC refusal of a pod is named by the adapter and classed by the provider', async (t) => {
  const { remote } = await useSharedClusters(t);
  const core = remote.kubeConfig().makeApiClient(CoreV1Api);
  const apply = (manifest: object): Promise<string> => remote.kubectl(['apply', '-f', '-'], { input: JSON.stringify(manifest) });

  const restricted = await testNamespace(t, remote, 'deny-psa');
  await remote.kubectl(['label', 'namespace', restricted, 'pod-security.kubernetes.io/enforce=restricted']);
  const noPods = await testNamespace(t, remote, 'deny-quota');
  await apply({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'no-pods', namespace: noPods }, spec: { hard: { pods: '0' } } });
  await remote.kubectl(['wait', '--for=jsonpath={.status.hard.pods}=0', 'resourcequota/no-pods', '-n', noPods, '--timeout=60s']);
  const needsLimits = await testNamespace(t, remote, 'deny-quota-limits');
  await apply({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'needs-limits', namespace: needsLimits }, spec: { hard: { 'limits.cpu': '4' } } });
  await remote.kubectl(['wait', '--for=jsonpath={.status.hard.limits\\.cpu}=4', 'resourcequota/needs-limits', '-n', needsLimits, '--timeout=60s']);
  const limited = await testNamespace(t, remote, 'deny-limits');
  await apply({ apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'max-cpu', namespace: limited }, spec: { limits: [{ type: 'Container', max: { cpu: '500m' } }] } });

  // A ValidatingAdmissionPolicy bound to one namespace only, by a label no other test uses.
  const policed = await testNamespace(t, remote, 'deny-vap');
  await remote.kubectl(['label', 'namespace', policed, `tether-test/vap=${policed}`]);
  const policy = `tether-test-${policed}`;
  t.teardown(() => remote.kubectl(['delete', 'validatingadmissionpolicybinding,validatingadmissionpolicy', policy, '--ignore-not-found']).catch(() => undefined));
  await apply({
    apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: policy },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] },
      validations: [{ expression: "object.spec.containers.all(c, c.image != 'busybox')", message: 'busybox is not allowed' }],
    },
  });
  await apply({
    apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: policy },
    spec: { policyName: policy, validationActions: ['Deny'], matchResources: { namespaceSelector: { matchLabels: { 'tether-test/vap': policed } } } },
  });

  // A ServiceAccount with no role: the authorizer refuses before admission runs.
  await remote.kubectl(['create', 'serviceaccount', 'nobody', '-n', noPods]);
  const token = (await remote.kubectl(['create', 'token', 'nobody', '-n', noPods])).trim();
  const nobodyConfig = new KubeConfig();
  nobodyConfig.loadFromFile(await remote.writeKubeconfig(join(mkdtempSync(join(tmpdir(), 'tether-deny-')), 'kubeconfig'), { token }));
  const asNobody = nobodyConfig.makeApiClient(CoreV1Api);

  const cases: Array<[string, CoreV1Api, string, V1Pod, string, string]> = [
    ['PodSecurity restricted, a privileged pod', core, restricted, pod({ securityContext: { privileged: true } }), 'pod-security', 'invalid-input'],
    ['LimitRange max cpu, a 2-cpu limit', core, limited, pod({ resources: { limits: { cpu: '2' } } }), 'limit-range', 'invalid-input'],
    ['a quota on limits.cpu, a pod without limits', core, needsLimits, pod(), 'quota-requires', 'invalid-input'],
    ['a quota of 0 pods', core, noPods, pod(), 'quota-exceeded', 'transient'],
    ['RBAC, a ServiceAccount with no role', asNobody, noPods, pod(), 'authorization', 'transient'],
  ];
  const policyRefusal = await refusal(core, policed, pod());
  t.equal(policyRefusal.status, 422, 'a ValidatingAdmissionPolicy refuses with 422');
  t.equal(policyRefusal.reason, 'Invalid', 'reason Invalid: structural, no denial to name');
  t.equal(policyRefusal.kind, 'invalid-input');
  t.equal(providerKindOf(toProviderError(policyRefusal, `create remote pod ${policed}/web`)), 'invalid-input', 'a rejection for the pod actor');

  for (const [what, client, namespace, body, denial, providerKind] of cases) {
    const err = await refusal(client, namespace, body);
    t.equal(err.status, 403, `${what}: 403`);
    t.equal(err.reason, 'Forbidden', `${what}: reason Forbidden`);
    t.equal(err.denial, denial, `${what}: named ${denial}`);
    t.equal(providerKindOf(toProviderError(err, `create remote pod ${namespace}/web`)), providerKind, `${what}: ${providerKind} for the pod actor`);
  }
});
