/** Node write retries back off with jitter, capped, and honour the server's Retry-After (issue 13, item 5). */
import t from 'tap';
import { backoffPolicy } from '../../../src/lib/backoff.js';
import { withNodeDefaults } from '../../../src/actors/node/config.js';
import { decideNode, initialNodeState, startNode } from '../../../src/actors/node/decide.js';
import type { NodeSettings } from '../../../src/actors/node/nodeObject.js';
import { idleLoop, writeFailed } from '../../../src/actors/node/writeLoop.js';

const retry = backoffPolicy(200, 7_000);

t.test('retries of different nodes are spread by jitter, and grow to the cap', async (t) => {
  const first = ['vk-1', 'vk-2', 'vk-3', 'vk-4', 'vk-5'].map((node) => writeFailed(idleLoop, 'x', retry, `${node}/status`).retryAfterMs);
  t.ok(new Set(first).size > 1, `not in lockstep: ${first.join(', ')}`);
  t.ok(first.every((ms) => ms >= 160 && ms <= 240), 'around 200 ms');
  let loop = idleLoop;
  const delays: number[] = [];
  for (let i = 0; i < 10; i++) {
    const r = writeFailed(loop, 'x', retry, 'vk-1/status');
    delays.push(r.retryAfterMs);
    loop = r.loop;
  }
  t.ok(delays[4]! > delays[0]! * 8, `grows: ${delays.join(', ')}`);
  t.ok(Math.max(...delays) <= retry.maxMs, 'capped');
});

t.test("a server's Retry-After wins over a shorter backoff", async (t) => {
  t.equal(writeFailed(idleLoop, '429', retry, 'vk-1/status', 20_000).retryAfterMs, 20_000);
});

t.test("the node actor passes the server's Retry-After to its write loop", async (t) => {
  const settings: NodeSettings = { config: withNodeDefaults({ nodeName: 'vn-1', internalIP: '10.0.0.7' }), providerName: 'sim' };
  const T0 = 1_000_000;
  const started = startNode(settings, initialNodeState(), T0).state;
  const failed = decideNode(settings, started, { type: 'node.register-failed', error: '429 TooManyRequests', retryAfterMs: 15_000 }, T0 + 1);
  t.match(failed.effects, [{ type: 'schedule', ms: 15_000, msg: { type: 'node.retry-register' } }]);
});
