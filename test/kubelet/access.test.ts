/**
 * The kubelet API's token reviews under a flood (access.ts `decideAccess`, boundedReviewer.ts):
 * an accepted token is answered from the cache and never rate-limited, unknown tokens are limited
 * per source address, so made-up tokens from one address cost neither the API server much nor any
 * other caller its access. On a manual clock. The real reviews are in test/e2e/kubectlLogs.test.ts.
 */
import type { IncomingMessage } from 'node:http';
import t from 'tap';
import type { AccessReviewer, NodeRequestAttributes, UserInfo } from '../../src/adapters/kubernetes/accessReview.js';
import { AUTHENTICATED_TOKEN_TTL_MS, boundedReviewer, decideAccess, TOKEN_REFRESH_AFTER_MS, UNAUTHENTICATED_TOKEN_TTL_MS } from '../../src/kubelet/access.js';
import { ManualClock } from '../support/manualClock.js';

/** The API server: `metrics-server` and `fresh-*` tokens are accepted, anything else is made up. */
class CountingReviewer implements AccessReviewer {
  reviews = 0;
  async reviewToken(token: string): Promise<UserInfo | undefined> {
    this.reviews++;
    if (token === 'metrics-server') return { username: 'system:serviceaccount:kube-system:metrics-server', groups: [] };
    return token.startsWith('fresh-') ? { username: token, groups: [] } : undefined;
  }
  async authorize(_user: UserInfo, _attributes: NodeRequestAttributes): Promise<{ allowed: boolean }> {
    return { allowed: true };
  }
}

const request = (token: string, remoteAddress: string): IncomingMessage =>
  ({ headers: { authorization: `Bearer ${token}` }, method: 'GET', socket: { authorized: false, remoteAddress } }) as unknown as IncomingMessage;

const code = async (reviewer: AccessReviewer, token: string, from: string): Promise<number> => {
  const decision = await decideAccess(reviewer, 'vk', request(token, from), '/metrics/resource');
  return decision.allowed ? 200 : decision.code;
};

const METRICS_SERVER = '10.0.0.5';
const ATTACKER = '10.0.0.66';

void t.test("metrics-server's accepted token keeps working through a flood of made-up tokens from another address", async (t) => {
  const clock = new ManualClock();
  const reviewer = boundedReviewer(new CountingReviewer(), { clock });
  t.equal(await code(reviewer, 'metrics-server', METRICS_SERVER), 200, 'the first scrape');
  const scrapes: number[] = [];
  let junk = 0;
  // Five minutes of 40 made-up tokens a second, a scrape every 15 s (metrics-server's default).
  for (let second = 1; second <= 300; second++) {
    clock.advance(1_000);
    for (let i = 0; i < 40; i++) await code(reviewer, `made-up-${junk++}`, ATTACKER);
    if (second % 15 === 0) scrapes.push(await code(reviewer, 'metrics-server', METRICS_SERVER));
  }
  t.equal(scrapes.length, 20);
  t.same(new Set(scrapes), new Set([200]), 'every scrape allowed, none 429');
});

void t.test("a flood from one address does not starve another address's first review", async (t) => {
  const clock = new ManualClock();
  const reviewer = boundedReviewer(new CountingReviewer(), { clock });
  const flood: number[] = [];
  for (let i = 0; i < 100; i++) flood.push(await code(reviewer, `made-up-${i}`, ATTACKER));
  t.ok(flood.includes(429), 'the flooding address is refused beyond its own limit');
  t.equal(await code(reviewer, 'fresh-alice', '10.0.0.7'), 200, 'a new caller at another address is reviewed and allowed');
  t.equal(await code(reviewer, 'made-up-x', '10.0.0.8'), 401, 'and a third address still gets its own answer, not 429');
});

void t.test('an accepted token in use stays cached while many addresses together exhaust the overall rate', async (t) => {
  const clock = new ManualClock();
  const inner = new CountingReviewer();
  const reviewer = boundedReviewer(inner, { clock });
  t.equal(await code(reviewer, 'metrics-server', METRICS_SERVER), 200);
  const scrapes: number[] = [];
  const refused: number[] = [];
  // Ten minutes of 40 addresses sending one made-up token a second each: within every address's
  // own limit, twice the overall one.
  for (let second = 1; second <= 600; second++) {
    clock.advance(1_000);
    for (let a = 0; a < 40; a++) refused.push(await code(reviewer, `made-up-${second}-${a}`, `10.1.0.${a}`));
    if (second % 15 === 0) scrapes.push(await code(reviewer, 'metrics-server', METRICS_SERVER));
  }
  t.ok(refused.includes(429), 'the overall limit was reached');
  t.equal(scrapes.length, 40);
  t.same(new Set(scrapes), new Set([200]), 'every scrape allowed: the token was re-reviewed ahead of expiry, outside the limits');
});

void t.test('a cached token in use is re-reviewed once it is a minute old, so a revoked token stops working within the 2 min TTL', async (t) => {
  const clock = new ManualClock();
  const inner = new CountingReviewer();
  const reviewer = boundedReviewer(inner, { clock });
  t.equal(await code(reviewer, 'fresh-bob', '10.0.0.9'), 200);
  clock.advance(TOKEN_REFRESH_AFTER_MS - 1);
  t.equal(await code(reviewer, 'fresh-bob', '10.0.0.9'), 200);
  t.equal(inner.reviews, 1, 'answered from the cache');
  const revoked = (token: string): Promise<UserInfo | undefined> => {
    inner.reviews++;
    return Promise.resolve(token === 'fresh-bob' ? undefined : { username: token, groups: [] });
  };
  inner.reviewToken = revoked;
  clock.advance(1);
  t.equal(await code(reviewer, 'fresh-bob', '10.0.0.9'), 200, 'still the cached answer while the re-review runs');
  t.equal(inner.reviews, 2, 're-reviewed in the background');
  t.equal(await code(reviewer, 'fresh-bob', '10.0.0.9'), 401, 'the revocation is seen');
  t.equal(inner.reviews, 2, 'and remembered');
  t.equal(AUTHENTICATED_TOKEN_TTL_MS, 120_000);
});

void t.test('a token not used for the 2 min TTL is reviewed again', async (t) => {
  const clock = new ManualClock();
  const inner = new CountingReviewer();
  const reviewer = boundedReviewer(inner, { clock });
  await code(reviewer, 'fresh-carol', '10.0.0.9');
  clock.advance(AUTHENTICATED_TOKEN_TTL_MS + 1);
  t.equal(await code(reviewer, 'fresh-carol', '10.0.0.9'), 200);
  t.equal(inner.reviews, 2);
});

void t.test('a token the API server rejected is refused without a new review for the 2 min TTL, then asked again', async (t) => {
  const clock = new ManualClock();
  const inner = new CountingReviewer();
  const reviewer = boundedReviewer(inner, { clock });
  for (let i = 0; i < 5; i++) t.equal(await code(reviewer, 'made-up', ATTACKER), 401);
  t.equal(inner.reviews, 1, 'one review for five requests');
  clock.advance(UNAUTHENTICATED_TOKEN_TTL_MS - 1);
  await code(reviewer, 'made-up', ATTACKER);
  t.equal(inner.reviews, 1, 'still remembered');
  clock.advance(2);
  await code(reviewer, 'made-up', ATTACKER);
  t.equal(inner.reviews, 2, 'asked again once the answer expired');
});

void t.test('concurrent requests with one token share one review', async (t) => {
  const inner = new CountingReviewer();
  const reviewer = boundedReviewer(inner, { clock: new ManualClock() });
  t.same(await Promise.all([code(reviewer, 'x', ATTACKER), code(reviewer, 'x', ATTACKER), code(reviewer, 'x', ATTACKER)]), [401, 401, 401]);
  t.equal(inner.reviews, 1);
});

void t.test("beyond its own burst an address is refused (429 naming it) until its bucket refills; others are not", async (t) => {
  const clock = new ManualClock();
  const inner = new CountingReviewer();
  const reviewer = boundedReviewer(inner, { clock, sourceReviewsPerSecond: 2, sourceBurst: 3 });
  const codes: number[] = [];
  for (let i = 0; i < 5; i++) codes.push(await code(reviewer, `token-${i}`, ATTACKER));
  t.same(codes, [401, 401, 401, 429, 429], 'three reviews, then refused');
  t.equal(inner.reviews, 3, 'the API server saw only three');
  const refusal = await decideAccess(reviewer, 'vk', request('token-5', ATTACKER), '/pods');
  t.match(refusal, { allowed: false, code: 429, message: /too many token reviews from 10\.0\.0\.66/ });
  t.equal(await code(reviewer, 'token-6', '10.0.0.67'), 401, 'another address has its own bucket');
  clock.advance(500);
  t.equal(await code(reviewer, 'token-7', ATTACKER), 401, 'one more review after half a second at 2/s');
  t.equal(await code(reviewer, 'token-8', ATTACKER), 429);
});

void t.test('reviews beyond the overall rate are refused whichever address asks', async (t) => {
  const clock = new ManualClock();
  const inner = new CountingReviewer();
  const reviewer = boundedReviewer(inner, { clock, reviewsPerSecond: 1, burst: 2 });
  const codes: number[] = [];
  for (let i = 0; i < 4; i++) codes.push(await code(reviewer, `token-${i}`, `10.2.0.${i}`));
  t.same(codes, [401, 401, 429, 429]);
  const refusal = await decideAccess(reviewer, 'vk', request('token-9', '10.2.0.9'), '/pods');
  t.match(refusal, { allowed: false, code: 429, message: /too many token reviews overall/ });
  t.equal(inner.reviews, 2);
});

void t.test('an IPv4 caller on a dual-stack socket is one address, however it is written', async (t) => {
  const inner = new CountingReviewer();
  const reviewer = boundedReviewer(inner, { clock: new ManualClock(), sourceReviewsPerSecond: 1, sourceBurst: 1 });
  t.equal(await code(reviewer, 'token-1', '10.3.0.1'), 401);
  t.equal(await code(reviewer, 'token-2', '::ffff:10.3.0.1'), 429);
});

void t.test('a review that does not answer in time is a 503, not a hang, and is not remembered', async (t) => {
  const clock = new ManualClock();
  const inner = new CountingReviewer();
  const answer = inner.reviewToken.bind(inner);
  inner.reviewToken = () => {
    inner.reviews++;
    return new Promise(() => undefined);
  };
  const reviewer = boundedReviewer(inner, { clock, timeoutMs: 5_000 });
  const pending = decideAccess(reviewer, 'vk', request('fresh-dan', METRICS_SERVER), '/pods');
  clock.advance(5_000);
  t.match(await pending, { allowed: false, code: 503, message: /timed out after 5000 ms/ });
  inner.reviewToken = answer;
  t.equal(await code(reviewer, 'fresh-dan', METRICS_SERVER), 200, 'asked again');
});
