/**
 * Authorization of kubelet API requests (access.ts `decideAccess`): the fine-grained subresource
 * first and nodes/proxy as the kubelet's fallback, streams only with `create` on nodes/proxy, and
 * SubjectAccessReview verdicts cached as the kubelet's webhook authorizer caches them
 * (boundedReviewer.ts). Users and grants are GrantingReviewer's.
 */
import type { IncomingMessage } from 'node:http';
import t from 'tap';
import { AUTHORIZED_TTL_MS, boundedReviewer, decideAccess, MAX_VERDICT_KEY_CHARS, UNAUTHORIZED_TTL_MS } from '../../src/kubelet/access.js';
import type { AccessReviewer, NodeRequestAttributes, UserInfo } from '../../src/kubelet/access.js';
import { GrantingReviewer } from '../support/fakeAccessReviewer.js';
import { ManualClock } from '../support/manualClock.js';

const user = (username: string): UserInfo => ({ username, groups: [] });
const grants = (): GrantingReviewer => new GrantingReviewer(
  { pods: user('pods-reader'), proxy: user('proxy-reader'), none: user('nobody'), admin: user('kube-apiserver-kubelet-client') },
  {
    'pods-reader': ['get pods'],
    'proxy-reader': ['get proxy'],
    'kube-apiserver-kubelet-client': ['* proxy', '* pods', '* healthz', '* configz', '* stats', '* metrics', '* log'],
  },
);

const request = (token: string, method = 'GET', headers: Record<string, string> = {}): IncomingMessage =>
  ({ headers: { authorization: `Bearer ${token}`, ...headers }, method, socket: { authorized: false, remoteAddress: '10.0.0.5' } }) as unknown as IncomingMessage;
const WEBSOCKET = { connection: 'Upgrade', upgrade: 'websocket' };

void t.test('/pods is allowed by nodes/pods alone, or by the nodes/proxy fallback', async (t) => {
  const reviewer = grants();
  t.match(await decideAccess(reviewer, 'vk', request('pods'), '/pods'), { allowed: true, user: { username: 'pods-reader' } });
  t.same(reviewer.asked.map((a) => a.subresource), ['pods'], 'one review: the fine-grained one allowed it');
  reviewer.asked.length = 0;
  t.match(await decideAccess(reviewer, 'vk', request('proxy'), '/pods'), { allowed: true });
  t.same(reviewer.asked.map((a) => `${a.verb} ${a.subresource}`), ['get pods', 'get proxy'], 'denied nodes/pods, then the fallback');
});

void t.test('refused by every subresource tried: 403 naming them, with the last reason', async (t) => {
  const reviewer = grants();
  t.same(await decideAccess(reviewer, 'vk', request('none'), '/healthz'), {
    allowed: false, code: 403, message: 'Forbidden (user=nobody, verb=get, resource=nodes, subresource(s)=[healthz proxy]): no rule for get nodes/proxy',
  });
  t.same(await decideAccess(reviewer, 'vk', request('none'), '/stats/summary'), {
    allowed: false, code: 403, message: 'Forbidden (user=nobody, verb=get, resource=nodes, subresource=stats): no rule for get nodes/stats',
  });
  t.match(await decideAccess(reviewer, 'vk', request('pods'), '/containerLogs/ns/p/c'), { allowed: false, code: 403 }, 'nodes/pods does not read logs');
});

void t.test('a review that fails ends the check: no fallback past an error', async (t) => {
  const failing: AccessReviewer = {
    reviewToken: async () => user('alice'),
    authorize: async () => {
      throw new Error('the API server said 500');
    },
  };
  await t.rejects(decideAccess(failing, 'vk', request('x'), '/pods'), /said 500/);
});

void t.test('exec, attach and port-forward need create on nodes/proxy, over a WebSocket (GET) as over SPDY (POST)', async (t) => {
  const reviewer = grants();
  for (const path of ['/exec/ns/p/c', '/attach/ns/p/c', '/portForward/ns/p', '/exec/ns/p/uid/c', '/%65xec/ns/p/c', '/portForward']) {
    for (const [method, headers] of [['GET', WEBSOCKET], ['POST', {}], ['GET', {}]] as const) {
      t.match(await decideAccess(reviewer, 'vk', request('proxy', method, headers), path), {
        allowed: false, code: 403, message: 'Forbidden (user=proxy-reader, verb=create, resource=nodes, subresource=proxy): no rule for create nodes/proxy',
      }, `${method} ${path}: get nodes/proxy is not enough`);
      t.match(await decideAccess(reviewer, 'vk', request('admin', method, headers), path), { allowed: true }, `${method} ${path}: the API server's identity`);
    }
  }
  t.match(await decideAccess(reviewer, 'vk', request('proxy'), '/containerLogs/ns/p/c'), { allowed: true }, 'reading logs stays get nodes/proxy');
});

void t.test('verdicts are cached: allowed for 5 min, denied for 30 s', async (t) => {
  const clock = new ManualClock();
  const inner = grants();
  const reviewer = boundedReviewer(inner, { clock });
  const alice = user('pods-reader');
  const pods: NodeRequestAttributes = { verb: 'get', resource: 'nodes', subresource: 'pods', name: 'vk' };
  const proxy: NodeRequestAttributes = { ...pods, subresource: 'proxy' };
  t.equal((await reviewer.authorize(alice, pods)).allowed, true);
  t.equal((await reviewer.authorize(alice, proxy)).allowed, false);
  clock.advance(UNAUTHORIZED_TTL_MS - 1);
  await reviewer.authorize(alice, pods);
  await reviewer.authorize(alice, proxy);
  t.equal(inner.asked.length, 2, 'both answered from the cache');
  clock.advance(2);
  await reviewer.authorize(alice, proxy);
  t.equal(inner.asked.length, 3, 'the denial expired after 30 s');
  clock.advance(AUTHORIZED_TTL_MS - UNAUTHORIZED_TTL_MS - 2);
  await reviewer.authorize(alice, pods);
  t.equal(inner.asked.length, 3, 'the allowance still cached');
  clock.advance(2);
  await reviewer.authorize(alice, pods);
  t.equal(inner.asked.length, 4, 'the allowance expired after 5 min');
});

void t.test("users differing only in extra, uid or groups never share a verdict", async (t) => {
  const inner = grants();
  const reviewer = boundedReviewer(inner, { clock: new ManualClock() });
  const pods: NodeRequestAttributes = { verb: 'get', resource: 'nodes', subresource: 'pods', name: 'vk' };
  for (const who of [user('pods-reader'), { ...user('pods-reader'), extra: { scopes: ['x'] } }, { ...user('pods-reader'), uid: 'u' }, { ...user('pods-reader'), groups: ['g'] }]) {
    await reviewer.authorize(who, pods);
  }
  t.equal(inner.asked.length, 4);
});

void t.test('a verdict whose key is over the bound is not cached', async (t) => {
  const inner = grants();
  const reviewer = boundedReviewer(inner, { clock: new ManualClock() });
  const big = { username: 'pods-reader', groups: ['g'.repeat(MAX_VERDICT_KEY_CHARS)] };
  const pods: NodeRequestAttributes = { verb: 'get', resource: 'nodes', subresource: 'pods', name: 'vk' };
  await reviewer.authorize(big, pods);
  await reviewer.authorize(big, pods);
  t.equal(inner.asked.length, 2);
});
