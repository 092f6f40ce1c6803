/**
 * TokenReview and SubjectAccessReview against the host API server, for the kubelet API's webhook
 * authentication and authorization. Answers are cached briefly, as the kubelet caches them
 * (authenticated tokens 2 min; allowed 5 min, denied 30 s), so `kubectl logs -f` and a scraper do
 * not cost a review per request. A failed review is an error (the request gets a 500 and the
 * caller may retry), never an implicit allow.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { AuthenticationV1Api, AuthorizationV1Api } from '@kubernetes/client-node';
import { LRUCache } from 'lru-cache';
import type { AccessReviewer, NodeRequestAttributes, UserInfo } from './accessReview.js';
import { callWithDeadline } from '../../lib/callWithDeadline.js';
import { systemClock } from '../clock.js';
import { DEFAULT_CALL_DEADLINES, withSignal } from './call.js';
import { translateErrors } from './errors.js';

export interface AccessReviewCacheOptions {
  readonly authenticatedTtlMs?: number;
  readonly allowedTtlMs?: number;
  readonly deniedTtlMs?: number;
  /** Each review's deadline (default: the 'other' call deadline, 10 s). */
  readonly timeoutMs?: number;
}

type Verdict = { allowed: boolean; reason?: string };

export function createAccessReviewer(kubeConfig: KubeConfig, cache: AccessReviewCacheOptions = {}): AccessReviewer {
  const authn = kubeConfig.makeApiClient(AuthenticationV1Api);
  const authz = kubeConfig.makeApiClient(AuthorizationV1Api);
  const tokens = new LRUCache<string, UserInfo>({ max: 1_000, ttl: cache.authenticatedTtlMs ?? 120_000 });
  const verdicts = new LRUCache<string, Verdict>({ max: 10_000, ttl: cache.allowedTtlMs ?? 300_000 });
  const deniedTtl = cache.deniedTtlMs ?? 30_000;
  const timeoutMs = cache.timeoutMs ?? DEFAULT_CALL_DEADLINES.other;
  const bounded = <T>(fn: (options: ReturnType<typeof withSignal>) => Promise<T>): Promise<T> =>
    callWithDeadline(systemClock, timeoutMs, undefined, (signal) => fn(withSignal(signal)));
  return {
    async reviewToken(token) {
      const known = tokens.get(token);
      if (known) return known;
      const review = await translateErrors('create tokenreview', () => bounded((o) => authn.createTokenReview({ body: { spec: { token } } }, o)));
      const status = review.status;
      if (!status?.authenticated || !status.user?.username) return undefined;
      const user: UserInfo = {
        username: status.user.username,
        groups: status.user.groups ?? [],
        ...(status.user.uid ? { uid: status.user.uid } : {}),
        ...(status.user.extra ? { extra: status.user.extra } : {}),
      };
      tokens.set(token, user);
      return user;
    },
    async authorize(user: UserInfo, attributes: NodeRequestAttributes) {
      // Every field the API server decides on is in the key: two users differing only in `extra`
      // (scopes, say) must not share a verdict.
      const extra = user.extra ? Object.keys(user.extra).sort().map((k) => [k, user.extra?.[k]]) : [];
      const key = JSON.stringify([user.username, user.uid, user.groups, extra, attributes]);
      const known = verdicts.get(key);
      if (known) return known;
      const review = await translateErrors('create subjectaccessreview', () => bounded((o) => authz.createSubjectAccessReview({
        body: {
          spec: {
            user: user.username,
            groups: [...user.groups],
            ...(user.uid ? { uid: user.uid } : {}),
            ...(user.extra ? { extra: Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]])) } : {}),
            resourceAttributes: { ...attributes, group: '' },
          },
        },
      }, o)));
      const verdict: Verdict = { allowed: review.status?.allowed === true, ...(review.status?.reason ? { reason: review.status.reason } : {}) };
      verdicts.set(key, verdict, verdict.allowed ? {} : { ttl: deniedTtl });
      return verdict;
    },
  };
}
