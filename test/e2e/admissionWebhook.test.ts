/**
 * Reflection under a remote mutating admission webhook, on the shared host and remote clusters:
 * a policy webhook in the remote cluster labels every ConfigMap and Service written in the
 * offloaded pod's remote namespace (as an audit or cost-allocation policy would). Tether's copies
 * carry the webhook's label and are written once per host change, not rewritten on each of their
 * own watch events. The webhook is a small HTTPS server in this process, reached by the remote
 * API server through `clientConfig.url`; it counts what it admits.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { CoreV1Api } from '@kubernetes/client-node';
import type { Pod } from '../../src/adapters/kubernetes/model.js';
import { createClusterCredentials } from '../../src/harness/certificates.js';
import { KubernetesProvider } from '../../src/providers/kubernetes/index.js';
import { reportLogsOnFailure, testNamespace, useSharedClusters } from '../harness/sharedClusters.js';
import { waitFor } from '../harness/waitFor.js';
import { runReconcilers } from '../support/reconcilers.js';

const AUDIT_LABEL = 'policy.example/audited';

interface AdmissionReview {
  request: { uid: string; kind: { kind: string }; namespace?: string; name?: string; object: { metadata?: { name?: string; labels?: Record<string, string> } } };
}

/** The webhook: adds AUDIT_LABEL to whatever it admits; `admitted` counts per kind/namespace/name. */
async function startAuditWebhook(): Promise<{ server: Server; url: string; caBundle: string; admitted: Map<string, number> }> {
  const credentials = await createClusterCredentials(mkdtempSync(join(tmpdir(), 'tether-webhook-')), {
    clusterName: 'audit-webhook', sans: { ips: ['127.0.0.1'], dns: [] },
  });
  const admitted = new Map<string, number>();
  const server = createServer({ cert: readFileSync(credentials.serving.certPath), key: readFileSync(credentials.serving.keyPath) }, (req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const review = JSON.parse(body) as AdmissionReview;
      const { kind, namespace, object } = review.request;
      const key = `${kind.kind}/${namespace ?? ''}/${review.request.name ?? object.metadata?.name ?? ''}`;
      admitted.set(key, (admitted.get(key) ?? 0) + 1);
      const patch = object.metadata?.labels
        ? [{ op: 'add', path: `/metadata/labels/${AUDIT_LABEL.replace('/', '~1')}`, value: 'true' }]
        : [{ op: 'add', path: '/metadata/labels', value: { [AUDIT_LABEL]: 'true' } }];
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({
        apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview',
        response: { uid: review.request.uid, allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(patch)).toString('base64') },
      }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `https://127.0.0.1:${port}/mutate`, caBundle: readFileSync(credentials.ca.certPath).toString('base64'), admitted };
}

t.test('copies a remote mutating webhook labels are written once per host change, not on each of their watch events, nor again after a restart', async (t) => {
  const shared = await useSharedClusters(t);
  reportLogsOnFailure(t, [shared.host, shared.remote]);
  const hostApi = shared.host.kubeConfig().makeApiClient(CoreV1Api);
  const remoteApi = shared.remote.kubeConfig().makeApiClient(CoreV1Api);
  const id = randomBytes(3).toString('hex');
  const hostClusterId = `w${id}`;
  const namespace = await testNamespace(t, shared.host, 'webhook');
  const start = (): KubernetesProvider => {
    const started = new KubernetesProvider({
      nodeName: `vk-${hostClusterId}`, hostClusterId,
      host: { kind: 'file', path: shared.host.kubeconfigPath },
      remote: { kind: 'file', path: shared.remote.kubeconfigPath },
      reflection: { sweepDelayMs: 50, minAgeMs: 0 },
    });
    started.notifyPods(() => undefined);
    runReconcilers(t, started.reconcilers()); // as the node's subtree runs them
    return started;
  };
  let provider = start();
  const remoteNamespace = provider.remoteNamespaceOf(namespace);
  const probeNamespace = `probe-${id}`;

  const webhook = await startAuditWebhook();
  const configName = `tether-e2e-audit-${id}`;
  await shared.remote.kubectl(['apply', '-f', '-'], {
    input: JSON.stringify({
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: configName },
      webhooks: [{
        name: 'audit.tether-e2e.example',
        clientConfig: { url: webhook.url, caBundle: webhook.caBundle },
        rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps', 'services'] }],
        // Only this test's namespaces: the remote cluster is shared with the rest of the suite.
        namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: [remoteNamespace, probeNamespace] }] },
        sideEffects: 'None', admissionReviewVersions: ['v1'], failurePolicy: 'Ignore', timeoutSeconds: 5,
      }],
    }),
  });
  t.teardown(async () => {
    await provider.stop();
    await shared.remote.kubectl(['delete', 'mutatingwebhookconfiguration', configName, '--ignore-not-found']).catch(() => undefined);
    await shared.remote.kubectl(['delete', 'namespace', remoteNamespace, probeNamespace, '--wait=false', '--ignore-not-found']).catch(() => undefined);
    webhook.server.closeAllConnections();
    webhook.server.close();
  });

  // The API server picks the configuration up asynchronously: wait until a probe object comes back labelled.
  await remoteApi.createNamespace({ body: { metadata: { name: probeNamespace } } });
  let probes = 0;
  await waitFor('the webhook active in the remote API server', async () => {
    const created = await remoteApi.createNamespacedConfigMap({ namespace: probeNamespace, body: { metadata: { name: `probe-${probes++}`, labels: { probe: 'yes' } } } });
    return created.metadata?.labels?.[AUDIT_LABEL] === 'true';
  }, { timeoutMs: 60_000, intervalMs: 500 });

  await hostApi.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'app-config' }, data: { 'app.conf': 'v1' } } });
  await hostApi.createNamespacedService({ namespace, body: { metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } } });
  const uid = `uid-${randomBytes(4).toString('hex')}`;
  const pod: Pod = {
    metadata: { namespace, name: 'web-1', uid, labels: { app: 'web' }, annotations: { 'tether.dev/virtual-node': 'vk', 'tether.dev/host-uid': uid } },
    spec: {
      nodeName: 'vk', serviceAccountName: 'default',
      volumes: [{ name: 'cfg', configMap: { name: 'app-config' } }],
      containers: [{ name: 'app', image: 'registry.invalid/app:1', volumeMounts: [{ name: 'cfg', mountPath: '/etc/app' }] }],
    },
  };
  await waitFor('the pod offloaded', async () => {
    await provider.createPod(structuredClone(pod));
    return true;
  }, { timeoutMs: 60_000, intervalMs: 300 });

  const remoteCopy = async (kind: 'ConfigMap' | 'Service'): Promise<{ labels?: Record<string, string>; data?: Record<string, string> } | undefined> => {
    try {
      const object = kind === 'ConfigMap'
        ? await remoteApi.readNamespacedConfigMap({ namespace: remoteNamespace, name: 'app-config' })
        : await remoteApi.readNamespacedService({ namespace: remoteNamespace, name: 'web' });
      return { ...(object.metadata?.labels ? { labels: object.metadata.labels } : {}), ...('data' in object && object.data ? { data: object.data } : {}) };
    } catch {
      return undefined;
    }
  };
  const configMap = await waitFor('the ConfigMap copy, labelled by the webhook', async () => {
    const copy = await remoteCopy('ConfigMap');
    return copy?.labels?.[AUDIT_LABEL] === 'true' ? copy : undefined;
  }, { timeoutMs: 60_000 });
  t.equal(configMap.labels?.['tether.dev/managed-by'], 'tether', 'Tether\'s copy, with the webhook\'s label added');
  await waitFor('the Service copy, labelled by the webhook', async () => (await remoteCopy('Service'))?.labels?.[AUDIT_LABEL] === 'true', { timeoutMs: 60_000 });

  // Two host changes, each seen through to the remote: a copy rewritten on its own watch events
  // would have been admitted again on every round trip in between.
  const setConfig = (value: string): Promise<string> =>
    shared.host.kubectl(['patch', 'configmap', 'app-config', '-n', namespace, '--type', 'merge', '-p', JSON.stringify({ data: { 'app.conf': value } })]);
  await setConfig('v2');
  await waitFor('v2 reflected', async () => (await remoteCopy('ConfigMap'))?.data?.['app.conf'] === 'v2', { timeoutMs: 60_000 });
  await shared.host.kubectl(['label', 'service', 'web', '-n', namespace, 'tier=front']);
  await waitFor('the Service label reflected', async () => (await remoteCopy('Service'))?.labels?.tier === 'front', { timeoutMs: 60_000 });
  await setConfig('v3');
  await waitFor('v3 reflected', async () => (await remoteCopy('ConfigMap'))?.data?.['app.conf'] === 'v3', { timeoutMs: 60_000 });

  const admittedConfigMap = webhook.admitted.get(`ConfigMap/${remoteNamespace}/app-config`) ?? 0;
  const admittedService = webhook.admitted.get(`Service/${remoteNamespace}/web`) ?? 0;
  t.ok(admittedConfigMap >= 3 && admittedConfigMap <= 4, `the ConfigMap copy admitted once per version (v1, v2, v3; one more if a stale event raced a write): ${admittedConfigMap}`);
  t.ok(admittedService >= 2 && admittedService <= 3, `the Service copy admitted once per version (created, labelled; one more if a stale event raced): ${admittedService}`);

  // A restart: the new provider remembers nothing it wrote. The copies carry the webhook's label,
  // and Tether's content mark says they still carry what Tether wants: nothing is written.
  await provider.stop();
  provider = start();
  await waitFor('the restarted provider sees its pod', async () => (await provider.getPod(namespace, 'web-1'))?.metadata?.uid === uid, { timeoutMs: 60_000 });
  await waitFor('and reflects its namespace', () => provider.serviceReflection().some((r) => r.namespace === namespace && r.services === 1), { timeoutMs: 60_000 });
  // One more change of each, seen through: both reflectors have judged every copy by then.
  await setConfig('v4');
  await waitFor('v4 reflected', async () => (await remoteCopy('ConfigMap'))?.data?.['app.conf'] === 'v4', { timeoutMs: 60_000 });
  await shared.host.kubectl(['label', 'service', 'web', '-n', namespace, 'tier=back', '--overwrite']);
  await waitFor('the new Service label reflected', async () => (await remoteCopy('Service'))?.labels?.tier === 'back', { timeoutMs: 60_000 });
  t.equal((webhook.admitted.get(`ConfigMap/${remoteNamespace}/app-config`) ?? 0) - admittedConfigMap, 1, 'after the restart: only v4 was written');
  t.equal((webhook.admitted.get(`Service/${remoteNamespace}/web`) ?? 0) - admittedService, 1, 'after the restart: only the new label was written');
});
