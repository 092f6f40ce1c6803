/**
 * The SubjectAccessReview cache holds every field the API server decides on: two users who differ
 * only in `extra` (scopes, say) never share a verdict. Against a stand-in API server that allows
 * only the user whose extra carries scope "logs".
 */
import t from 'tap';
import { createAccessReviewer } from '../../../src/adapters/kubernetes/accessReviewClient.js';
import { MockApiServer } from './mockApiServer.js';

void t.test('users differing only in extra get their own SubjectAccessReview and verdict', async (t) => {
  const api = await MockApiServer.start();
  t.teardown(() => api.close());
  api.route((req) => {
    if (!req.url.pathname.endsWith('/subjectaccessreviews')) return undefined;
    const body = JSON.parse(req.body) as { spec: { extra?: Record<string, string[]> } };
    const allowed = body.spec.extra?.['scopes']?.includes('logs') === true;
    return { status: 201, body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: body.spec, status: { allowed } } };
  });
  const reviewer = createAccessReviewer(api.kubeConfig());
  const attributes = { verb: 'get', resource: 'nodes' as const, subresource: 'proxy', name: 'vk' };
  const scoped = { username: 'alice', groups: [], extra: { scopes: ['logs'] } };
  const unscoped = { username: 'alice', groups: [], extra: { scopes: ['none'] } };
  t.equal((await reviewer.authorize(scoped, attributes)).allowed, true);
  t.equal((await reviewer.authorize(unscoped, attributes)).allowed, false, 'not the cached verdict of the scoped user');
  t.equal((await reviewer.authorize(scoped, attributes)).allowed, true, 'cached');
  t.equal(api.requests.filter((r) => r.url.pathname.endsWith('/subjectaccessreviews')).length, 2, 'one review per distinct user');
});
