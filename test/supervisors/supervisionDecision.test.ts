import t from 'tap';
import { backoffDelay } from '../../src/lib/backoff.js';
import { podRestartPolicy, rootRestartPolicy, validateRestartPolicy, type RestartPolicy } from '../../src/supervisors/restartPolicy.js';
import { decideOnCrash, newLedger, restartsAfterNormalExit } from '../../src/supervisors/supervisionDecision.js';

const noJitter = { minMs: 100, maxMs: 1_000, factor: 2, jitter: 0, resetAfterMs: 10_000 };
const policy = (over: Partial<RestartPolicy> = {}): RestartPolicy => ({
  strategy: 'one-for-one',
  restart: 'permanent',
  backoff: noJitter,
  ...over,
});

t.test('backoff grows by the factor from the minimum and stops at the maximum', async (t) => {
  t.same([0, 1, 2, 3, 4, 5].map((n) => backoffDelay(noJitter, n)), [100, 200, 400, 800, 1_000, 1_000]);
});

t.test('jitter stays within the configured fraction of the delay', async (t) => {
  const b = { ...noJitter, jitter: 0.5 };
  t.equal(backoffDelay(b, 1, () => 0), 100, 'lowest draw: 200 - 50%');
  t.equal(backoffDelay(b, 1, () => 0.999999), 300, 'highest draw: 200 + 50%');
});

t.test('a crash under budget restarts the child after a growing delay', async (t) => {
  let ledger = newLedger(0);
  const delays: number[] = [];
  for (const now of [1, 2, 3]) {
    const out = decideOnCrash({ policy: policy(), restartType: 'permanent', child: ledger, supervisorRestarts: [], now });
    t.equal(out.decision.action, 'restart');
    if (out.decision.action === 'restart') delays.push(out.decision.delayMs);
    ledger = out.child;
  }
  t.same(delays, [100, 200, 400]);
});

t.test('a child that ran quietly long enough starts again from the minimum delay', async (t) => {
  const ledger = { restartTimes: [], consecutive: 4, startedAt: 0 };
  const out = decideOnCrash({ policy: policy(), restartType: 'permanent', child: ledger, supervisorRestarts: [], now: 10_000 });
  t.same(out.decision, { action: 'restart', delayMs: 100, siblings: false });
});

t.test('a child over its own budget is given up, nothing escalates', async (t) => {
  const p = policy({ childIntensity: { maxRestarts: 2, withinMs: 1_000 } });
  let ledger = newLedger(0);
  const actions: string[] = [];
  for (const now of [10, 20, 30]) {
    const out = decideOnCrash({ policy: p, restartType: 'transient', child: ledger, supervisorRestarts: [], now });
    actions.push(out.decision.action);
    ledger = out.child;
  }
  t.same(actions, ['restart', 'restart', 'give-up']);
});

t.test('restarts outside the intensity window do not count', async (t) => {
  const p = policy({ childIntensity: { maxRestarts: 2, withinMs: 1_000 } });
  const ledger = { restartTimes: [0, 10], consecutive: 2, startedAt: 10 };
  const out = decideOnCrash({ policy: p, restartType: 'permanent', child: ledger, supervisorRestarts: [], now: 2_000 });
  t.equal(out.decision.action, 'restart');
  t.same(out.child.restartTimes, [2_000]);
});

t.test('the supervisor-wide budget escalates, whichever child crashed', async (t) => {
  const p = policy({ intensity: { maxRestarts: 2, withinMs: 1_000 } });
  const out = decideOnCrash({ policy: p, restartType: 'permanent', child: newLedger(0), supervisorRestarts: [100, 200], now: 300 });
  t.equal(out.decision.action, 'escalate');
  t.match(out.decision, { reason: /more than 2 restarts within 1000 ms/ });
});

t.test('a temporary child is never restarted', async (t) => {
  const out = decideOnCrash({ policy: policy(), restartType: 'temporary', child: newLedger(0), supervisorRestarts: [], now: 1 });
  t.equal(out.decision.action, 'give-up');
});

t.test('all-for-one asks for the siblings to restart too', async (t) => {
  const out = decideOnCrash({ policy: policy({ strategy: 'all-for-one' }), restartType: 'permanent', child: newLedger(0), supervisorRestarts: [], now: 1 });
  t.match(out.decision, { action: 'restart', siblings: true });
});

t.test('only permanent children come back after a normal exit', async (t) => {
  t.same(['permanent', 'transient', 'temporary'].map((r) => restartsAfterNormalExit(r as 'permanent')), [true, false, false]);
});

t.test('the default pod policy gives up a poison pod and never escalates', async (t) => {
  t.equal(podRestartPolicy.intensity, undefined, 'no supervisor-wide budget: one pod cannot fail its shard');
  t.ok(podRestartPolicy.childIntensity);
  t.same(validateRestartPolicy(podRestartPolicy), []);
  t.same(validateRestartPolicy(rootRestartPolicy), []);
});

t.test('policy validation names every bad field', async (t) => {
  const bad: RestartPolicy = {
    ...policy(),
    childIntensity: { maxRestarts: -1, withinMs: 0 },
    backoff: { minMs: 500, maxMs: 100, factor: 0.5, jitter: 2, resetAfterMs: 1 },
  };
  const problems = validateRestartPolicy(bad).map((p) => `${p.path.join('.')}: ${p.message}`);
  t.match(problems.join('\n'), /childIntensity\.maxRestarts: expected a non-negative number/);
  t.match(problems.join('\n'), /childIntensity\.withinMs/);
  t.match(problems.join('\n'), /backoff\.factor/);
  t.match(problems.join('\n'), /backoff\.jitter/);
  t.match(problems.join('\n'), /backoff\.maxMs: must not be below/);
});
