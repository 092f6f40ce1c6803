/**
 * An AccessReviewer for kubelet API tests without an API server: token `good` is alice (allowed
 * everything), `weak` is bob (denied everything, "no RBAC rule"), any other token is unknown.
 * It records the attributes it was asked about.
 */
import type { AccessReviewer, NodeRequestAttributes, UserInfo } from '../../src/adapters/kubernetes/accessReview.js';

export class FakeAccessReviewer implements AccessReviewer {
  readonly asked: NodeRequestAttributes[] = [];

  async reviewToken(token: string): Promise<UserInfo | undefined> {
    return token === 'good' || token === 'weak' ? { username: token === 'good' ? 'alice' : 'bob', groups: [] } : undefined;
  }

  async authorize(user: UserInfo, attributes: NodeRequestAttributes): Promise<{ allowed: boolean; reason?: string }> {
    this.asked.push(attributes);
    return user.username === 'alice' ? { allowed: true } : { allowed: false, reason: 'no RBAC rule' };
  }
}
