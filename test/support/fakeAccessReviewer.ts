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

/**
 * An AccessReviewer with RBAC-like grants: `tokens` maps a token to its user, `grants` a username to
 * the `verb subresource` pairs it is allowed on `nodes` (`*` for any verb). It counts the reviews
 * of each kind and records the attributes asked about.
 */
export class GrantingReviewer implements AccessReviewer {
  tokenReviews = 0;
  readonly asked: NodeRequestAttributes[] = [];

  constructor(
    private readonly tokens: Readonly<Record<string, UserInfo>>,
    private readonly grants: Readonly<Record<string, readonly string[]>>,
  ) {}

  async reviewToken(token: string): Promise<UserInfo | undefined> {
    this.tokenReviews++;
    return this.tokens[token];
  }

  async authorize(user: UserInfo, attributes: NodeRequestAttributes): Promise<{ allowed: boolean; reason?: string }> {
    this.asked.push(attributes);
    const granted = this.grants[user.username] ?? [];
    const allowed = granted.includes(`${attributes.verb} ${attributes.subresource}`) || granted.includes(`* ${attributes.subresource}`);
    return allowed ? { allowed } : { allowed, reason: `no rule for ${attributes.verb} nodes/${attributes.subresource}` };
  }
}
