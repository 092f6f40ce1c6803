/**
 * The pure parts of Service reflection, as tables: host Service → remote Service, host
 * EndpointSlice → remote EndpointSlice, endpoint → remote pod address, and the plan that turns
 * desired copies and existing ones into writes and deletions.
 */
import t from 'tap';
import type { EndpointSlice, Pod, Service } from '../../../../src/adapters/kubernetes/model.js';
import { addressOfFamily, offloadedPodLookup, translateEndpoint, type OffloadedPodLookup } from '../../../../src/providers/kubernetes/serviceReflection/endpointTranslation.js';
import { ENDPOINTSLICE_MANAGER, endpointSliceDigest, remoteEndpointSlice } from '../../../../src/providers/kubernetes/serviceReflection/reflectedEndpointSlice.js';
import { isReflectedBy, isReflectedService, remoteService, serviceDigest } from '../../../../src/providers/kubernetes/serviceReflection/reflectedService.js';
import { desiredObjects, planReflection, REFLECTED_KINDS } from '../../../../src/providers/kubernetes/serviceReflection/servicePlan.js';

const marks = { hostClusterId: 'home', nodeName: 'vk-1' };
const ownLabels = { 'tether.dev/managed-by': 'tether', 'tether.dev/host-cluster': 'home', 'tether.dev/virtual-node': 'vk-1' };

function service(name: string, spec: Service['spec'], meta: Partial<NonNullable<Service['metadata']>> = {}): Service {
  return { metadata: { name, namespace: 'shop', uid: `uid-${name}`, resourceVersion: '7', ...meta }, spec };
}

t.test('host Service → remote Service', async (t) => {
  const tcp = { name: 'pg', protocol: 'TCP', port: 5432, targetPort: 5432 };
  const cases: Array<{ what: string; host: Service; spec: Service['spec'] }> = [
    {
      what: 'ClusterIP: no selector, no clusterIP, ports, affinity, families and publishNotReady kept',
      host: service('db', {
        type: 'ClusterIP', selector: { app: 'db' }, clusterIP: '10.0.0.7', clusterIPs: ['10.0.0.7'], ports: [tcp],
        sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 60 } },
        ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack', publishNotReadyAddresses: true, internalTrafficPolicy: 'Cluster',
      }),
      spec: {
        type: 'ClusterIP', ports: [tcp], sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 60 } },
        ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack', publishNotReadyAddresses: true,
      },
    },
    {
      what: 'headless: clusterIP None kept',
      host: service('db-headless', { type: 'ClusterIP', clusterIP: 'None', clusterIPs: ['None'], selector: { app: 'db' }, ports: [tcp] }),
      spec: { type: 'ClusterIP', clusterIP: 'None', ports: [tcp] },
    },
    {
      what: 'ExternalName: the name kept, no IP families',
      host: service('ext', { type: 'ExternalName', externalName: 'db.example.com', ipFamilies: ['IPv4'], sessionAffinity: 'None' }),
      spec: { type: 'ExternalName', externalName: 'db.example.com', sessionAffinity: 'None' },
    },
    {
      what: 'NodePort: becomes ClusterIP, node ports dropped',
      host: service('web', { type: 'NodePort', clusterIP: '10.0.0.9', ports: [{ ...tcp, nodePort: 30001 }], externalTrafficPolicy: 'Local' }),
      spec: { type: 'ClusterIP', ports: [tcp] },
    },
  ];
  for (const c of cases) {
    const remote = remoteService(c.host, 'shop-home', marks);
    t.same(remote.spec, c.spec, c.what);
    t.strictSame(Object.keys(remote.spec ?? {}).sort(), Object.keys(c.spec ?? {}).sort(), `${c.what}: nothing else`);
  }
});

t.test('remote Service metadata: same name, marks, host namespace, host labels and annotations cleaned', async (t) => {
  const host = service('db', { ports: [{ port: 1 }] }, {
    labels: { app: 'db', 'tether.dev/host-cluster': 'forged' },
    annotations: { note: 'x', 'kubectl.kubernetes.io/last-applied-configuration': '{}' },
  });
  const remote = remoteService(host, 'shop-home', marks);
  t.same(remote.metadata, {
    name: 'db', namespace: 'shop-home',
    labels: { app: 'db', ...ownLabels },
    annotations: { note: 'x', 'tether.dev/host-namespace': 'shop' },
  });
  t.ok(isReflectedBy(remote.metadata?.labels, marks));
  t.notOk(isReflectedBy({ ...ownLabels, 'tether.dev/virtual-node': 'vk-2' }, marks), 'another node\'s copy is not ours');
  t.notOk(isReflectedBy({ app: 'db' }, marks), 'a foreign object is not ours');
  t.notOk(isReflectedService({ metadata: { namespace: 'default', name: 'kubernetes' } }), 'the host API server\'s own Service stays home');
  t.ok(isReflectedService({ metadata: { namespace: 'shop', name: 'kubernetes' } }));
});

t.test('the Service digest ignores what the remote server allocates or defaults', async (t) => {
  const desired = remoteService(service('db', { type: 'ClusterIP', ports: [{ name: 'pg', protocol: 'TCP', port: 5432, targetPort: 5432 }], sessionAffinity: 'None' }), 'shop-home', marks);
  const fromServer: Service = structuredClone(desired);
  fromServer.metadata = { ...fromServer.metadata, uid: 'remote-uid', resourceVersion: '99', creationTimestamp: new Date() };
  fromServer.spec = { ...fromServer.spec, clusterIP: '10.1.0.3', clusterIPs: ['10.1.0.3'], internalTrafficPolicy: 'Cluster' };
  t.equal(serviceDigest(fromServer), serviceDigest(desired), 'allocated IP, uid, resourceVersion: same digest');
  const changed = structuredClone(desired);
  changed.spec!.ports![0]!.port = 5433;
  t.not(serviceDigest(changed), serviceDigest(desired), 'a port change is a change');
  const headless = structuredClone(desired);
  headless.spec!.clusterIP = 'None';
  t.not(serviceDigest(headless), serviceDigest(desired), 'turning headless is a change');
});

const remotePods: Record<string, Pod> = {
  'shop-home/web-1': {
    metadata: { namespace: 'shop-home', name: 'web-1', uid: 'r-1', annotations: { 'tether.dev/host-uid': 'h-1' } },
    status: { podIP: '10.88.0.5', podIPs: [{ ip: '10.88.0.5' }, { ip: 'fd00::5' }] },
  },
  'shop-home/web-2': { metadata: { namespace: 'shop-home', name: 'web-2', uid: 'r-2' }, status: {} },
};
const lookup: OffloadedPodLookup = offloadedPodLookup((ns, name) => remotePods[`${ns}/${name}`], (ns) => `${ns}-home`);

t.test('endpoint translation: offloaded pods get their remote address, others keep theirs', async (t) => {
  const conditions = { ready: true, serving: true, terminating: false };
  const cases: Array<{ what: string; addressType: string; endpoint: Parameters<typeof translateEndpoint>[0]; want: ReturnType<typeof translateEndpoint> }> = [
    {
      what: 'an offloaded pod: the remote pod IP and a targetRef to the remote pod',
      addressType: 'IPv4',
      endpoint: { addresses: ['192.168.1.5'], conditions, hostname: 'web-1', zone: 'z1', nodeName: 'vk', targetRef: { kind: 'Pod', namespace: 'shop', name: 'web-1', uid: 'h-1' } },
      want: { addresses: ['10.88.0.5'], conditions, hostname: 'web-1', zone: 'z1', targetRef: { kind: 'Pod', namespace: 'shop-home', name: 'web-1', uid: 'r-1' } },
    },
    {
      what: 'an offloaded pod in an IPv6 slice: the remote IPv6 address',
      addressType: 'IPv6',
      endpoint: { addresses: ['fd00::99'], targetRef: { kind: 'Pod', namespace: 'shop', name: 'web-1' } },
      want: { addresses: ['fd00::5'], targetRef: { kind: 'Pod', namespace: 'shop-home', name: 'web-1', uid: 'r-1' } },
    },
    {
      what: 'a host-side pod: its address, no targetRef (it names a host object), no nodeName',
      addressType: 'IPv4',
      endpoint: { addresses: ['10.77.0.3'], conditions, nodeName: 'host-node', targetRef: { kind: 'Pod', namespace: 'shop', name: 'db-0', uid: 'h-9' } },
      want: { addresses: ['10.77.0.3'], conditions },
    },
    {
      what: 'a host pod recreated under an offloaded pod\'s name (other uid): not translated',
      addressType: 'IPv4',
      endpoint: { addresses: ['10.77.0.4'], targetRef: { kind: 'Pod', namespace: 'shop', name: 'web-1', uid: 'h-other' } },
      want: { addresses: ['10.77.0.4'] },
    },
    {
      what: 'an offloaded pod without an IP yet: the host address kept',
      addressType: 'IPv4',
      endpoint: { addresses: ['10.88.0.6'], targetRef: { kind: 'Pod', namespace: 'shop', name: 'web-2' } },
      want: { addresses: ['10.88.0.6'] },
    },
    {
      what: 'a hand-written endpoint without targetRef: as it is',
      addressType: 'IPv4',
      endpoint: { addresses: ['203.0.113.10'], conditions: { ready: true } },
      want: { addresses: ['203.0.113.10'], conditions: { ready: true } },
    },
  ];
  for (const c of cases) t.same(translateEndpoint(c.endpoint, c.addressType, 'shop', lookup), c.want, c.what);
  t.equal(addressOfFamily(['10.0.0.1', 'fd00::1'], 'FQDN'), undefined, 'FQDN slices are never translated');
});

function hostSlice(name: string, serviceName: string, endpoints: EndpointSlice['endpoints']): EndpointSlice {
  return {
    metadata: {
      name, namespace: 'shop', uid: `uid-${name}`, generateName: `${serviceName}-`,
      labels: { 'kubernetes.io/service-name': serviceName, 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io', app: 'db' },
      annotations: { 'endpoints.kubernetes.io/last-change-trigger-time': '2026-01-01T00:00:00Z' },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Service', name: serviceName, uid: 'x' }],
    },
    addressType: 'IPv4',
    endpoints,
    ports: [{ name: 'pg', port: 5432, protocol: 'TCP' }],
  };
}

t.test('host EndpointSlice → remote EndpointSlice', async (t) => {
  const host = hostSlice('db-abcde', 'db', [
    { addresses: ['10.77.0.3'], conditions: { ready: true, serving: true, terminating: false }, nodeName: 'n', targetRef: { kind: 'Pod', namespace: 'shop', name: 'db-0' } },
    { addresses: ['192.168.1.5'], conditions: { ready: false, serving: true, terminating: true }, targetRef: { kind: 'Pod', namespace: 'shop', name: 'web-1' } },
  ]);
  const remote = remoteEndpointSlice(host, 'shop-home', marks, lookup);
  t.same(remote, {
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
    metadata: {
      name: 'db-abcde', namespace: 'shop-home',
      labels: { app: 'db', 'kubernetes.io/service-name': 'db', 'endpointslice.kubernetes.io/managed-by': ENDPOINTSLICE_MANAGER, ...ownLabels },
      annotations: { 'tether.dev/host-namespace': 'shop' },
    },
    addressType: 'IPv4',
    endpoints: [
      { addresses: ['10.77.0.3'], conditions: { ready: true, serving: true, terminating: false } },
      { addresses: ['10.88.0.5'], conditions: { ready: false, serving: true, terminating: true }, targetRef: { kind: 'Pod', namespace: 'shop-home', name: 'web-1', uid: 'r-1' } },
    ],
    ports: [{ name: 'pg', port: 5432, protocol: 'TCP' }],
  });
  const fromServer = structuredClone(remote);
  fromServer.metadata = { ...fromServer.metadata, uid: 'u', resourceVersion: '3', generation: 2 };
  t.equal(endpointSliceDigest(fromServer), endpointSliceDigest(remote), 'server-set fields: same digest');
  const notReady = structuredClone(remote);
  notReady.endpoints[0]!.conditions!.ready = false;
  t.not(endpointSliceDigest(notReady), endpointSliceDigest(remote), 'a condition change is a change');
});

t.test('a remote slice never carries a host address inside the remote\'s own pod or Service CIDRs (address safety)', async (t) => {
  // The remote's pod CIDR is 10.88.0.0/16, its Service CIDR 10.0.0.0/24 (addresses/endpointAddresses.ts).
  const remoteOwn = (ip: string): string | undefined => (ip.startsWith('10.88.') || ip.startsWith('10.0.0.') ? undefined : ip);
  const host = hostSlice('db-abcde', 'db', [
    { addresses: ['10.88.7.7'], conditions: { ready: true }, targetRef: { kind: 'Pod', namespace: 'shop', name: 'db-0' } },
    { addresses: ['10.0.0.20'], conditions: { ready: true } },
    { addresses: ['10.77.0.3'], conditions: { ready: true }, targetRef: { kind: 'Pod', namespace: 'shop', name: 'db-1' } },
    { addresses: ['192.168.1.5'], conditions: { ready: true }, targetRef: { kind: 'Pod', namespace: 'shop', name: 'web-1' } },
  ]);
  const remote = remoteEndpointSlice(host, 'shop-home', marks, lookup, remoteOwn);
  t.same(remote.endpoints.map((e) => e.addresses), [['10.77.0.3'], ['10.88.0.5']],
    'a host pod on the remote\'s pod range and an address in its Service range are left out; other host pods kept; the offloaded pod gets its remote IP (inside the remote range, as it should)');
  const fqdn = { ...hostSlice('ext', 'db', [{ addresses: ['10.88.example.com'] }]), addressType: 'FQDN' };
  t.same(remoteEndpointSlice(fqdn, 'shop-home', marks, lookup, remoteOwn).endpoints, [{ addresses: ['10.88.example.com'] }], 'an FQDN slice holds names: not checked');
});

t.test('desired objects: the namespace\'s Services and the slices of those Services, by kind', async (t) => {
  const services = [service('db', { ports: [{ port: 5432 }] }), service('ext', { type: 'ExternalName', externalName: 'x.example.com' })];
  const slices = [hostSlice('db-1', 'db', []), hostSlice('orphan-1', 'gone', []), { ...hostSlice('plain', 'db', []), metadata: { name: 'plain', namespace: 'shop' } }];
  const names = (kinds: readonly string[]): string[] =>
    desiredObjects({ services, slices, kinds: new Set(kinds as typeof REFLECTED_KINDS), remoteNamespace: 'shop-home', marks, lookup }).map((d) => `${d.kind}/${d.name}`);
  t.same(names(REFLECTED_KINDS), ['Service/db', 'Service/ext', 'EndpointSlice/db-1'], 'slices of other or no Services are not reflected');
  t.same(names(['Service']), ['Service/db', 'Service/ext'], 'Services only');
  t.same(names([]), [], 'none');
});

t.test('the plan: write what differs, skip what was just written or refused, delete what is not wanted', async (t) => {
  const desired = desiredObjects({
    services: [service('db', { ports: [{ port: 5432 }] }), service('cache', { ports: [{ port: 6379 }] }), service('taken', { ports: [{ port: 1 }] })],
    slices: [hostSlice('db-1', 'db', [])], kinds: new Set(REFLECTED_KINDS), remoteNamespace: 'shop-home', marks, lookup,
  });
  const digest = (key: string): string => desired.find((d) => `${d.kind}/${d.name}` === key)?.digest ?? '';
  const steps = planReflection({
    desired,
    existing: new Map([['Service/db', 'old'], ['Service/cache', digest('Service/cache')], ['Service/stale', 'x'], ['EndpointSlice/stale-1', 'y']]),
    written: new Map(),
    refused: new Map([['Service/taken', digest('Service/taken')]]),
  });
  t.same(steps.map((s) => (s.type === 'write' ? `write ${s.desired.kind}/${s.desired.name}` : `delete ${s.kind}/${s.name}`)), [
    'write Service/db', 'write EndpointSlice/db-1', 'delete EndpointSlice/stale-1', 'delete Service/stale',
  ], 'Services written before slices; slices deleted before Services; unchanged and refused ones left');
  const again = planReflection({ desired, existing: new Map(), written: new Map(desired.map((d) => [`${d.kind}/${d.name}`, d.digest])), refused: new Map() });
  t.same(again, [], 'what was just written is not written again while the remote watch catches up');
  t.same(planReflection({ desired: [], existing: new Map([['Service/db', 'a'], ['EndpointSlice/db-1', 'b']]), written: new Map(), refused: new Map() })
    .map((s) => s.type), ['delete', 'delete'], 'no offloaded pods left: everything goes');
});
