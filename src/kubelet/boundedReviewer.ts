/**
 * The kubelet API's reviews with the kubelet's caches in front and Tether's limits behind them,
 * so that what an anonymous network neighbour can make Tether do is bounded, and costs no one else:
 * - a token the API server accepted is answered from the cache for AUTHENTICATED_TOKEN_TTL_MS and
 *   never rate-limited; one still in use is re-reviewed in the background once it is
 *   TOKEN_REFRESH_AFTER_MS old, so a scraper's token stays cached even while the limits below are
 *   exhausted by others, and a revoked token stops working within the TTL, as with the kubelet;
 * - a token it rejected is answered "no" from a separate cache (made-up tokens cannot push accepted
 *   ones out) for UNAUTHENTICATED_TOKEN_TTL_MS;
 * - concurrent requests with one token share one review;
 * - any other token costs a review, limited per source address and overall (sourceRateLimit.ts;
 *   beyond: ReviewRateLimited, a 429);
 * - SubjectAccessReview verdicts are cached as the kubelet's webhook authorizer caches them;
 * - every review has a deadline (DeadlineExceededError, a 503).
 * The kubelet's values (k8s.io/kubernetes@v1.36.3 pkg/kubelet/apis/config/v1beta1/defaults.go,
 * k8s.io/apiserver@v0.36.3 pkg/authentication/authenticatorfactory/delegating.go and
 * plugin/pkg/authorizer/webhook/webhook.go): authentication.webhook.cacheTTL 2 min, used for
 * accepted and rejected tokens alike; authorization.webhook.cacheAuthorizedTTL 5 min,
 * cacheUnauthorizedTTL 30 s; 8192 verdicts; a verdict not cached when its key is over 10000 bytes.
 * Caches are keyed by an HMAC-SHA-256 of the token under a key made at start (as the kubelet's),
 * so no token is kept and no hash can be precomputed.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Clock } from '../lib/clock.js';
import { callWithDeadline } from '../lib/callWithDeadline.js';
import type { AccessReviewer, NodeRequestAttributes, UserInfo } from '../adapters/kubernetes/accessReview.js';
import { SourceRateLimit } from './sourceRateLimit.js';
import { definedOnly } from '../lib/defaults.js';

export const AUTHENTICATED_TOKEN_TTL_MS = 120_000;
export const UNAUTHENTICATED_TOKEN_TTL_MS = 120_000;
export const TOKEN_REFRESH_AFTER_MS = 60_000;
export const AUTHORIZED_TTL_MS = 300_000;
export const UNAUTHORIZED_TTL_MS = 30_000;
export const MAX_AUTHENTICATED_TOKENS = 4_096;
export const MAX_UNAUTHENTICATED_TOKENS = 10_000;
export const MAX_VERDICTS = 8_192;
export const MAX_VERDICT_KEY_CHARS = 10_000;
export const REVIEW_TIMEOUT_MS = 5_000;
export const SOURCE_REVIEWS_PER_SECOND = 2;
export const SOURCE_REVIEW_BURST = 10;
export const MAX_SOURCES = 10_000;
export const REVIEWS_PER_SECOND = 20;
export const REVIEW_BURST = 40;

/** More token reviews were asked for than the rate allows. */
export class ReviewRateLimited extends Error {
  override readonly name = 'ReviewRateLimited';
}

export interface BoundedReviewerOptions {
  readonly clock: Clock;
  /** How long an accepted token is answered from the cache (default AUTHENTICATED_TOKEN_TTL_MS). */
  readonly positiveTtlMs?: number;
  /** How long a rejected token is refused without asking (default UNAUTHENTICATED_TOKEN_TTL_MS). */
  readonly negativeTtlMs?: number;
  /** Age at which a cached token in use is re-reviewed in the background (default TOKEN_REFRESH_AFTER_MS). */
  readonly refreshAfterMs?: number;
  readonly allowedTtlMs?: number;
  readonly deniedTtlMs?: number;
  /** Deadline of one review (default REVIEW_TIMEOUT_MS). */
  readonly timeoutMs?: number;
  /** Reviews of unknown tokens that reach the API server, all sources together (defaults REVIEWS_PER_SECOND, REVIEW_BURST). */
  readonly reviewsPerSecond?: number;
  readonly burst?: number;
  /** The same, per source address (defaults SOURCE_REVIEWS_PER_SECOND, SOURCE_REVIEW_BURST, MAX_SOURCES). */
  readonly sourceReviewsPerSecond?: number;
  readonly sourceBurst?: number;
  readonly maxSources?: number;
}

interface Accepted {
  readonly user: UserInfo;
  readonly reviewedAt: number;
}

type Verdict = { allowed: boolean; reason?: string };

/** Every field the API server decides on: two users differing only in `extra` never share a verdict. */
function verdictKey(user: UserInfo, attributes: NodeRequestAttributes): string {
  const extra = user.extra ? Object.keys(user.extra).sort().map((k) => [k, user.extra?.[k]]) : [];
  const { verb, resource, subresource, name } = attributes;
  return JSON.stringify([user.username, user.uid, user.groups, extra, verb, resource, subresource, name]);
}

/** `inner` with the kubelet's caches, in-flight sharing, per-source and overall rate limits, and a deadline. */
export function boundedReviewer(inner: AccessReviewer, options: BoundedReviewerOptions): AccessReviewer {
  const { clock } = options;
  const timeoutMs = options.timeoutMs ?? REVIEW_TIMEOUT_MS;
  const refreshAfterMs = options.refreshAfterMs ?? TOKEN_REFRESH_AFTER_MS;
  const deniedTtl = options.deniedTtlMs ?? UNAUTHORIZED_TTL_MS;
  // lru-cache's TTLs on our clock, read at every access (no timers of its own).
  const onClock = { perf: { now: () => clock.now() }, ttlResolution: 0 };
  const accepted = new LRUCache<string, Accepted>({ max: MAX_AUTHENTICATED_TOKENS, ttl: options.positiveTtlMs ?? AUTHENTICATED_TOKEN_TTL_MS, ...onClock });
  const rejected = new LRUCache<string, true>({ max: MAX_UNAUTHENTICATED_TOKENS, ttl: options.negativeTtlMs ?? UNAUTHENTICATED_TOKEN_TTL_MS, ...onClock });
  const verdicts = new LRUCache<string, Verdict>({ max: MAX_VERDICTS, ttl: options.allowedTtlMs ?? AUTHORIZED_TTL_MS, ...onClock });
  const limit = new SourceRateLimit({
    clock,
    perSource: { perSecond: options.sourceReviewsPerSecond ?? SOURCE_REVIEWS_PER_SECOND, burst: options.sourceBurst ?? SOURCE_REVIEW_BURST },
    overall: { perSecond: options.reviewsPerSecond ?? REVIEWS_PER_SECOND, burst: options.burst ?? REVIEW_BURST },
    maxSources: options.maxSources ?? MAX_SOURCES,
  });
  const inFlight = new Map<string, Promise<UserInfo | undefined>>();
  const verdictsInFlight = new Map<string, Promise<Verdict>>();
  const hmacKey = randomBytes(32);
  const tokenKey = (token: string): string => createHmac('sha256', hmacKey).update(token).digest('base64');

  /** One TokenReview for `token`, its answer cached; shared by everyone asking meanwhile. */
  const review = (key: string, token: string): Promise<UserInfo | undefined> => {
    const pending = callWithDeadline(clock, timeoutMs, undefined, () => inner.reviewToken(token))
      .then((user) => {
        if (user === undefined) {
          accepted.delete(key);
          rejected.set(key, true);
        } else accepted.set(key, { user, reviewedAt: clock.now() });
        return user;
      })
      .finally(() => inFlight.delete(key));
    inFlight.set(key, pending);
    return pending;
  };

  return {
    reviewToken(token, source) {
      const key = tokenKey(token);
      const known = accepted.get(key);
      if (known) {
        // Refreshed ahead of expiry without the limits: at most one review per cached token per
        // refreshAfterMs, and only tokens the API server accepted are in this cache.
        if (clock.now() - known.reviewedAt >= refreshAfterMs && !inFlight.has(key)) review(key, token).catch(() => undefined);
        return Promise.resolve(known.user);
      }
      if (rejected.get(key)) return Promise.resolve(undefined);
      const pending = inFlight.get(key);
      if (pending) return pending;
      const admission = limit.admit(source ?? 'unknown');
      if (!admission.admitted) {
        const who = admission.limit === 'source' ? `from ${source ?? 'an unknown address'}` : 'overall';
        return Promise.reject(new ReviewRateLimited(`too many token reviews ${who}; retry later`));
      }
      return review(key, token);
    },
    authorize(user, attributes) {
      const key = verdictKey(user, attributes);
      const known = verdicts.get(key);
      if (known) return Promise.resolve(known);
      // Concurrent identical requests (an accepted token is never rate-limited) share one review.
      const pending = verdictsInFlight.get(key);
      if (pending) return pending;
      const asked = callWithDeadline(clock, timeoutMs, undefined, () => inner.authorize(user, attributes))
        .then((answer) => {
          const verdict: Verdict = { allowed: answer.allowed, ...definedOnly({ reason: answer.reason || undefined }) };
          // As the kubelet's authorizer: a key this large is someone's attempt to fill the cache.
          if (key.length <= MAX_VERDICT_KEY_CHARS) verdicts.set(key, verdict, verdict.allowed ? {} : { ttl: deniedTtl });
          return verdict;
        })
        .finally(() => verdictsInFlight.delete(key));
      // Not shared past the cache's own bound on keys: each such caller asks on its own.
      if (key.length <= MAX_VERDICT_KEY_CHARS) verdictsInFlight.set(key, asked);
      return asked;
    },
  };
}
