/**
 * The kubelet API's token reviews under a flood (access.ts `decideAccess`, boundedReviewer.ts):
 * an accepted token is answered from the cache and never rate-limited, unknown tokens are limited
 * per source address, so made-up tokens from one address cost neither the API server much nor any
 * other caller its access. On a manual clock. The real reviews are in test/e2e/kubectlLogs.test.ts.
 */
import type { IncomingMessage } from 'node:http';
import t from 'tap';
import type { AccessReviewer, NodeRequestAttributes, UserInfo } from '../../src/adapters/kubernetes/accessReview.js';
import { boundedReviewer, decideAccess } from '../../src/kubelet/access.js';
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
