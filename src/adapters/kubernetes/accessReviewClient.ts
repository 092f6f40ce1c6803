/**
 * TokenReview and SubjectAccessReview against the host API server, for the kubelet API's webhook
 * authentication and authorization: one call per review, under a deadline. The answers are cached
 * above this, where the rate limits are too (kubelet/boundedReviewer.ts: the kubelet's TTLs), so a
 * cached answer is never behind a limit. A failed review is an error (the request gets a 500 and
 * the caller may retry), never an implicit allow.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { AuthenticationV1Api, AuthorizationV1Api } from '@kubernetes/client-node';
import type { AccessReviewer, NodeRequestAttributes, UserInfo } from './accessReview.js';
import type { ClusterClient } from './clusterClient.js';
import { callWithDeadline } from '../../lib/callWithDeadline.js';
import { systemClock } from '../clock.js';
import { DEFAULT_CALL_DEADLINES, withSignal } from './call.js';
import { translateErrors } from './errors.js';
import { definedOnly } from '../../lib/defaults.js';

export interface AccessReviewClientOptions {
  /** Each review's deadline (default: the 'other' call deadline, 10 s). */
  readonly timeoutMs?: number;
}

/**
 * The reviewer of a running agent: its reviews go over the host connection the agent already
 * holds (its connection pool, its 'other' deadline), not over a kubeconfig loaded again.
 */
export function accessReviewerOf(cluster: ClusterClient): AccessReviewer {
  return createAccessReviewer(cluster.kubeConfig, { timeoutMs: cluster.deadlines.other });
}

export function createAccessReviewer(kubeConfig: KubeConfig, options: AccessReviewClientOptions = {}): AccessReviewer {
  const authn = kubeConfig.makeApiClient(AuthenticationV1Api);
  const authz = kubeConfig.makeApiClient(AuthorizationV1Api);
  const timeoutMs = options.timeoutMs ?? DEFAULT_CALL_DEADLINES.other;
  const bounded = <T>(fn: (options: ReturnType<typeof withSignal>) => Promise<T>): Promise<T> =>
    callWithDeadline(systemClock, timeoutMs, undefined, (signal) => fn(withSignal(signal)));
  return {
    async reviewToken(token) {
      const review = await translateErrors('create tokenreview', () => bounded((o) => authn.createTokenReview({ body: { spec: { token } } }, o)));
      const status = review.status;
      if (!status?.authenticated || !status.user?.username) return undefined;
      return {
        username: status.user.username,
        groups: status.user.groups ?? [],
        ...definedOnly({ uid: status.user.uid || undefined, extra: status.user.extra }),
      };
    },
    async authorize(user: UserInfo, attributes: NodeRequestAttributes) {
      const review = await translateErrors('create subjectaccessreview', () => bounded((o) => authz.createSubjectAccessReview({
        body: {
          spec: {
            user: user.username,
            groups: [...user.groups],
            ...definedOnly({
              uid: user.uid || undefined,
              extra: user.extra ? Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]])) : undefined,
            }),
            resourceAttributes: { ...attributes, group: '', version: 'v1' },
          },
        },
      }, o)));
      return { allowed: review.status?.allowed === true, ...definedOnly({ reason: review.status?.reason || undefined }) };
    },
  };
}
