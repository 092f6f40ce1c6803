/**
 * Capacity arithmetic: which remote nodes count, what their pods take away, and the quota
 * override.
 */
import t from 'tap';
import type { Node, Pod } from '../../../../src/adapters/kubernetes/model.js';
import { isUsableNode, podRequests, remoteCapacity } from '../../../../src/providers/kubernetes/node/capacity.js';

function node(name: string, options: { ready?: boolean; unschedulable?: boolean; virtual?: boolean; cpu?: string; memory?: string; pods?: string } = {}): Node {
  return {
    metadata: { name, labels: options.virtual ? { type: 'virtual-kubelet' } : {} },
    spec: { unschedulable: options.unschedulable ?? false },
    status: {
      conditions: [{ type: 'Ready', status: options.ready === false ? 'False' : 'True' }],
      allocatable: { cpu: options.cpu ?? '4', memory: options.memory ?? '8Gi', pods: options.pods ?? '110' },
    },
  };
}

function pod(nodeName: string | undefined, requests: Record<string, string>, options: { phase?: string; own?: boolean } = {}): Pod {
  return {
    metadata: { name: 'p', labels: options.own ? { 'tether.dev/virtual-node': 'vk-1' } : {} },
    spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'c', resources: { requests } }] },
    status: { phase: options.phase ?? 'Running' },
  };
}

t.test('usable nodes: Ready, schedulable, not virtual', async (t) => {
  t.ok(isUsableNode(node('a')));
  t.notOk(isUsableNode(node('b', { ready: false })));
  t.notOk(isUsableNode(node('c', { unschedulable: true })));
  t.notOk(isUsableNode(node('d', { virtual: true })));
  t.ok(isUsableNode(node('d', { virtual: true }), true), 'virtual nodes count when they are the remote workers');
  t.notOk(isUsableNode({ metadata: { name: 'e' } }), 'no conditions: not Ready');
});

t.test('capacity sums usable nodes; allocatable subtracts non-terminal pods on them, except our own', async (t) => {
  const nodes = [node('a'), node('b', { cpu: '2', memory: '4Gi' }), node('down', { ready: false }), node('vk', { virtual: true })];
  const pods = [
    pod('a', { cpu: '500m', memory: '1Gi' }),
    pod('b', { cpu: '1' }),
    pod('a', { cpu: '1' }, { phase: 'Succeeded' }),
    pod('down', { cpu: '1' }),
    pod(undefined, { cpu: '1' }),
    pod('a', { cpu: '1' }, { own: true }),
  ];
  const result = remoteCapacity({ nodes, pods, isOwnPod: (p) => p.metadata?.labels?.['tether.dev/virtual-node'] === 'vk-1' });
  t.same(result.capacity, { cpu: '6', memory: String(12 * 2 ** 30), pods: '220' });
  t.same(result.allocatable, { cpu: '4500m', memory: String(11 * 2 ** 30), pods: '218' });
});

t.test('allocatable never goes below zero', async (t) => {
  const result = remoteCapacity({ nodes: [node('a', { cpu: '1' })], pods: [pod('a', { cpu: '3' })] });
  t.equal(result.allocatable.cpu, '0');
});

t.test('a quota replaces the computation', async (t) => {
  const quota = { cpu: '10', memory: '20Gi', pods: '50' };
  t.same(remoteCapacity({ nodes: [node('a')], pods: [], quota }), { capacity: quota, allocatable: quota });
});

t.test('pod requests as the scheduler counts them', async (t) => {
  const p: Pod = {
    spec: {
      initContainers: [
        { name: 'big-init', resources: { requests: { cpu: '3' } } },
        { name: 'sidecar', restartPolicy: 'Always', resources: { requests: { cpu: '250m', memory: '64Mi' } } },
      ],
      containers: [{ name: 'a', resources: { requests: { cpu: '1' } } }, { name: 'b', resources: { requests: { cpu: '500m' } } }],
      overhead: { cpu: '100m' },
    },
  };
  const r = podRequests(p);
  t.ok(Math.abs((r.cpu ?? 0) - 3.1) < 1e-9, 'max(init 3, running 1.75) + overhead 0.1');
  t.equal(r.memory, 64 * 2 ** 20);
  t.equal(r.pods, 1);
  t.same(podRequests({ spec: { resources: { requests: { cpu: '2' } }, containers: [{ name: 'a', resources: { requests: { cpu: '9' } } }] } }),
    { cpu: 2, pods: 1 }, 'pod-level requests win');
});

t.test('a pool (the scheduling patch\'s nodeSelector) counts only the remote nodes carrying every pair of it', async (t) => {
  const labelled = (name: string, labels: Record<string, string>, cpu: string): Node => {
    const n = node(name, { cpu });
    return { ...n, metadata: { ...n.metadata, labels: { ...n.metadata?.labels, ...labels } } };
  };
  const nodes = [labelled('a1', { pool: 'a' }, '2'), labelled('a2', { pool: 'a', zone: 'x' }, '3'), labelled('b1', { pool: 'b' }, '5')];
  t.equal(remoteCapacity({ nodes, pods: [], pool: { pool: 'a' } }).capacity.cpu, '5');
  t.equal(remoteCapacity({ nodes, pods: [], pool: { pool: 'b' } }).capacity.cpu, '5');
  t.equal(remoteCapacity({ nodes, pods: [pod('b1', { cpu: '1' })], pool: { pool: 'a', zone: 'x' } }).capacity.cpu, '3');
  t.equal(remoteCapacity({ nodes, pods: [pod('b1', { cpu: '1' })], pool: { pool: 'b' } }).allocatable.cpu, '4', 'the pool\'s own nodes\' pods only');
  t.equal(remoteCapacity({ nodes, pods: [] }).capacity.cpu, '10', 'no pool: every node');
});
