/**
 * What the kubelet API needs from the host API server to authenticate and authorize a caller,
 * as the kubelet's webhook mode does: a TokenReview and a SubjectAccessReview.
 * Implemented by accessReviewClient.ts; faked in tests.
 */
export interface UserInfo {
  readonly username: string;
  readonly uid?: string;
  readonly groups: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/** A SubjectAccessReview's resource attributes for one kubelet API request. */
export interface NodeRequestAttributes {
  readonly verb: string;
  readonly resource: 'nodes';
  readonly subresource: string;
  readonly name: string;
}

export interface AccessReviewer {
  /**
   * The token's user, or undefined when the API server does not authenticate it. Rejects when the
   * review fails. `source` is the caller's network address, for a wrapper's per-address limit
   * (kubelet/boundedReviewer.ts); it is not sent to the API server.
   */
  reviewToken(token: string, source?: string): Promise<UserInfo | undefined>;
  /** Whether `user` may do `attributes`, and why not. Rejects when the review fails. */
  authorize(user: UserInfo, attributes: NodeRequestAttributes): Promise<{ allowed: boolean; reason?: string }>;
}
