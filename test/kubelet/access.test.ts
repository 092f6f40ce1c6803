/**
 * The kubelet API's token reviews, bounded (access.ts `boundedReviewer`): a rejected token is
 * remembered briefly, one review per token at a time, a rate limit (429) and a deadline (503) on
 * reviews, on a manual clock. The real reviews are in test/e2e/kubectlLogs.test.ts.
 */
import type { IncomingMessage } from 'node:http';
import t from 'tap';
import type { AccessReviewer, NodeRequestAttributes, UserInfo } from '../../src/adapters/kubernetes/accessReview.js';
import { boundedReviewer, decideAccess } from '../../src/kubelet/access.js';
import { ManualClock } from '../support/manualClock.js';

class CountingReviewer implements AccessReviewer {
  reviews = 0;
  hang = false;
  async reviewToken(token: string): Promise<UserInfo | undefined> {
    this.reviews++;
    if (this.hang) return new Promise(() => undefined);
    return token === 'good' ? { username: 'alice', groups: [] } : undefined;
  }
  async authorize(_user: UserInfo, _attributes: NodeRequestAttributes): Promise<{ allowed: boolean }> {
    if (this.hang) return new Promise(() => undefined);
    return { allowed: true };
  }
}

const request = (token: string): IncomingMessage =>
  ({ headers: { authorization: `Bearer ${token}` }, method: 'GET', socket: { authorized: false } }) as unknown as IncomingMessage;

void t.test('a token the API server rejected is refused without a new review for a while, then asked again', async (t) => {
  const clock = new ManualClock();
  const inner = new CountingReviewer();
  const reviewer = boundedReviewer(inner, { clock, negativeTtlMs: 10_000 });
  for (let i = 0; i < 5; i++) t.equal(await reviewer.reviewToken('made-up'), undefined);
  t.equal(inner.reviews, 1, 'one review for five requests');
  clock.advance(10_001);
  await reviewer.reviewToken('made-up');
  t.equal(inner.reviews, 2, 'asked again once the negative answer expired');
  t.match(await reviewer.reviewToken('good'), { username: 'alice' });
  t.match(await reviewer.reviewToken('good'), { username: 'alice' }, 'an accepted token is never negatively cached');
});

void t.test('concurrent requests with one token share one review', async (t) => {
  const inner = new CountingReviewer();
  const reviewer = boundedReviewer(inner, { clock: new ManualClock() });
  await Promise.all([reviewer.reviewToken('x'), reviewer.reviewToken('x'), reviewer.reviewToken('x')]);
  t.equal(inner.reviews, 1);
});

void t.test('beyond the rate, reviews are refused with 429 until the bucket refills', async (t) => {
  const clock = new ManualClock();
  const inner = new CountingReviewer();
  const reviewer = boundedReviewer(inner, { clock, reviewsPerSecond: 2, burst: 3 });
  const codes: number[] = [];
  for (let i = 0; i < 5; i++) {
    const d = await decideAccess(reviewer, 'vk', request(`token-${i}`), '/pods');
    codes.push(d.allowed ? 200 : d.code);
  }
  t.same(codes, [401, 401, 401, 429, 429], 'three reviews, then refused');
  t.equal(inner.reviews, 3, 'the API server saw only three');
  clock.advance(500);
  const later = await decideAccess(reviewer, 'vk', request('token-9'), '/pods');
  t.equal(later.allowed ? 200 : later.code, 401, 'one more review after half a second at 2/s');
});

void t.test('a review that does not answer in time is a 503, not a hang', async (t) => {
  const clock = new ManualClock();
  const inner = new CountingReviewer();
  inner.hang = true;
  const reviewer = boundedReviewer(inner, { clock, timeoutMs: 5_000 });
  const pending = decideAccess(reviewer, 'vk', request('slow'), '/pods');
  clock.advance(5_000);
  const decision = await pending;
  t.match(decision, { allowed: false, code: 503, message: /timed out after 5000 ms/ });
});
