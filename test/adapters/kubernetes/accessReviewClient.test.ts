/**
 * The access review client sends the API server everything it decides on and caches nothing (the
 * caches are in kubelet/boundedReviewer.ts, in front of the rate limits). Against a stand-in API
 * server that authenticates token `t-alice` and allows only the user whose extra carries scope "logs".
 */
import t from 'tap';
import { createAccessReviewer } from '../../../src/adapters/kubernetes/accessReviewClient.js';
import { MockApiServer } from './mockApiServer.js';

interface SarSpec {
  readonly user: string;
  readonly uid?: string;
  readonly groups: string[];
  readonly extra?: Record<string, string[]>;
  readonly resourceAttributes: Record<string, string>;
}

void t.test('a SubjectAccessReview carries the user (uid, groups, extra) and the attributes, one review per call', async (t) => {
  const api = await MockApiServer.start();
  t.teardown(() => api.close());
  const specs: SarSpec[] = [];
  api.route((req) => {
    if (!req.url.pathname.endsWith('/subjectaccessreviews')) return undefined;
    const spec = (JSON.parse(req.body) as { spec: SarSpec }).spec;
    specs.push(spec);
    const allowed = spec.extra?.['scopes']?.includes('logs') === true;
    return { status: 201, body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec, status: { allowed, reason: allowed ? undefined : 'no scope' } } };
  });
  const reviewer = createAccessReviewer(api.kubeConfig());
  const attributes = { verb: 'get', resource: 'nodes' as const, subresource: 'pods', name: 'vk' };
  const scoped = { username: 'alice', uid: 'u-1', groups: ['devs'], extra: { scopes: ['logs'] } };
  t.same(await reviewer.authorize(scoped, attributes), { allowed: true });
  t.same(await reviewer.authorize(scoped, attributes), { allowed: true });
  t.same(await reviewer.authorize({ username: 'alice', groups: [] }, attributes), { allowed: false, reason: 'no scope' });
  t.equal(specs.length, 3, 'no cache here: every call is a review');
  t.same(specs[0], {
    user: 'alice', uid: 'u-1', groups: ['devs'], extra: { scopes: ['logs'] },
    resourceAttributes: { verb: 'get', resource: 'nodes', subresource: 'pods', name: 'vk', group: '', version: 'v1' },
  });
});

void t.test("a TokenReview's user is the API server's answer; an unauthenticated token is no user", async (t) => {
  const api = await MockApiServer.start();
  t.teardown(() => api.close());
  api.route((req) => {
    if (!req.url.pathname.endsWith('/tokenreviews')) return undefined;
    const token = (JSON.parse(req.body) as { spec: { token: string } }).spec.token;
    const status = token === 't-alice'
      ? { authenticated: true, user: { username: 'alice', uid: 'u-1', groups: ['devs'], extra: { scopes: ['logs'] } } }
      : { authenticated: false, error: 'invalid bearer token' };
    return { status: 201, body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token }, status } };
  });
  const reviewer = createAccessReviewer(api.kubeConfig());
  t.same(await reviewer.reviewToken('t-alice'), { username: 'alice', uid: 'u-1', groups: ['devs'], extra: { scopes: ['logs'] } });
  t.equal(await reviewer.reviewToken('made-up'), undefined);
});
