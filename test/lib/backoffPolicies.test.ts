// Every retry in Tether runs on one BackoffPolicy (src/lib/backoff.ts). This table holds the delays
// each former shape gave before they were folded into it (attempts 0..11, the draw pinned where it
// is not seeded): the fold changed no number.
import t from 'tap';
import { backoffDelay, backoffPolicy, type BackoffPolicy } from '../../src/lib/backoff.js';
import { writeFailed, idleLoop } from '../../src/actors/node/writeLoop.js';
import { withNodeDefaults } from '../../src/actors/node/config.js';
import { nextRenewalMs } from '../../src/actors/lease/decide.js';
import { withLeaseDefaults } from '../../src/actors/lease/config.js';
import { retryDelay } from '../../src/actors/pod/transitions.js';
import { withPodDefaults } from '../../src/actors/pod/config.js';
import { defaultReconcilerSettings } from '../../src/lib/reconcile.js';
import { nodeRestartPolicy, podRestartPolicy, rootRestartPolicy } from '../../src/supervisors/restartPolicy.js';
import { lockRestartPolicy } from '../../src/ha/settings.js';
import { reconcilerRestartPolicy } from '../../src/actors/reconcilers.js';

const attempts = Array.from({ length: 12 }, (_, i) => i);
const draws = ['0', '0.5', '0.999'] as const;

const before = {
  nodeWrite: [232, 464, 930, 1862, 3688, 7000, 7000, 7000, 7000, 7000, 7000, 7000],
  lease: {
    '0': [160, 320, 640, 1280, 2560, 5120, 5600, 5600, 5600, 5600, 5600, 5600],
    '0.5': [200, 400, 800, 1600, 3200, 6400, 7000, 7000, 7000, 7000, 7000, 7000],
    '0.999': [240, 480, 960, 1919, 3839, 7000, 7000, 7000, 7000, 7000, 7000, 7000],
  },
  podCreate: [886, 2195, 3513, 6943, 18073, 29301, 63197, 106266, 248236, 300000, 245357, 261717],
  reconciler: {
    '0': [800, 1600, 3200, 6400, 12800, 25600, 51200, 102400, 204800, 240000, 240000, 240000],
    '0.5': [1000, 2000, 4000, 8000, 16000, 32000, 64000, 128000, 256000, 300000, 300000, 300000],
    '0.999': [1200, 2399, 4798, 9597, 19194, 38387, 76774, 153549, 300000, 300000, 300000, 300000],
  },
  podRestart: {
    '0': [160, 320, 640, 1280, 2560, 5120, 10240, 20480, 24000, 24000, 24000, 24000],
    '0.5': [200, 400, 800, 1600, 3200, 6400, 12800, 25600, 30000, 30000, 30000, 30000],
    '0.999': [240, 480, 960, 1919, 3839, 7677, 15355, 30000, 30000, 30000, 30000, 30000],
  },
  nodeRestart: {
    '0': [400, 800, 1600, 3200, 6400, 12800, 24000, 24000, 24000, 24000, 24000, 24000],
    '0.5': [500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000, 30000, 30000, 30000],
    '0.999': [600, 1200, 2399, 4798, 9597, 19194, 30000, 30000, 30000, 30000, 30000, 30000],
  },
  rootRestart: {
    '0': [800, 1600, 3200, 6400, 12800, 25600, 48000, 48000, 48000, 48000, 48000, 48000],
    '0.5': [1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000, 60000, 60000, 60000],
    '0.999': [1200, 2399, 4798, 9597, 19194, 38387, 60000, 60000, 60000, 60000, 60000, 60000],
  },
  lockRestart: {
    '0': [400, 800, 1600, 3200, 6400, 8000, 8000, 8000, 8000, 8000, 8000, 8000],
    '0.5': [500, 1000, 2000, 4000, 8000, 10000, 10000, 10000, 10000, 10000, 10000, 10000],
    '0.999': [600, 1200, 2399, 4798, 9597, 10000, 10000, 10000, 10000, 10000, 10000, 10000],
  },
  reconcilerRestart: {
    '0': [800, 1600, 3200, 6400, 12800, 25600, 48000, 48000, 48000, 48000, 48000, 48000],
    '0.5': [1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000, 60000, 60000, 60000],
    '0.999': [1200, 2399, 4798, 9597, 19194, 38387, 60000, 60000, 60000, 60000, 60000, 60000],
  },
};

void t.test('a node write loop (factor and jitter once hidden in writeLoop.ts) waits as before', async (t) => {
  const retry = withNodeDefaults({ nodeName: 'n', internalIP: '10.0.0.1' }).retry;
  let loop = idleLoop;
  const delays: number[] = [];
  for (const _ of attempts) {
    const failed = writeFailed(loop, 'x', retry, 'node-a/status');
    delays.push(failed.retryAfterMs);
    loop = { ...failed.loop, retryPending: false };
  }
  t.same(delays, before.nodeWrite);
});

void t.test('a failed lease renewal (factor once hidden in decide.ts) waits as before', async (t) => {
  const lease = withLeaseDefaults({ nodeName: 'n' });
  for (const draw of draws) t.same(attempts.map((a) => nextRenewalMs(lease, a + 1, () => Number(draw))), before.lease[draw], `draw ${draw}`);
});

void t.test('a pod create retry waits as before', async (t) => {
  t.same(attempts.map((a) => retryDelay(withPodDefaults({ nodeName: 'n' }), { uid: 'uid-1' }, a)), before.podCreate);
});

void t.test('the reconcilers and the supervisors\' restart policies wait as before', async (t) => {
  const policies: Record<string, BackoffPolicy> = {
    reconciler: defaultReconcilerSettings.backoff,
    podRestart: podRestartPolicy.backoff,
    nodeRestart: nodeRestartPolicy.backoff,
    rootRestart: rootRestartPolicy.backoff,
    lockRestart: lockRestartPolicy.backoff,
    reconcilerRestart: reconcilerRestartPolicy.backoff,
  };
  for (const [name, policy] of Object.entries(policies)) {
    const expected = before[name as keyof typeof before] as Record<string, number[]>;
    for (const draw of draws) t.same(attempts.map((a) => backoffDelay(policy, a, () => Number(draw))), expected[draw], `${name}, draw ${draw}`);
  }
});

void t.test('a policy named by its delays alone doubles with ±20 % jitter, the defaults every retry had', async (t) => {
  t.same(backoffPolicy(1_000, 30_000), { minMs: 1_000, maxMs: 30_000, factor: 2, jitter: 0.2 });
  t.same(backoffPolicy(1_000, 30_000, { jitter: 0 }), { minMs: 1_000, maxMs: 30_000, factor: 2, jitter: 0 });
});
