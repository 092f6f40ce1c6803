import { statusPatch, storedCondition, type NodeSettings } from './nodeObject.js';
import type { NodeEffect, NodeMsg, NodeState, Readiness, WriteLoop } from './protocol.js';
import { afterPing } from './readiness.js';
import { idleLoop, requestWrite, retryDue, writeFailed, writeSucceeded } from './writeLoop.js';

/**
 * The node actor's decisions, pure: (settings, state, message, now) → next state and effects.
 *
 * Three loops run side by side: pings (every ping.intervalMs) decide readiness; status writes
 * (on every readiness change and every statusIntervalMs) carry it to the Node; registration
 * (at start, and whenever the Node turns out to be gone) makes the Node exist. Each API loop
 * has one request in flight and retries with backoff. `node.shutdown` ends the first two.
 */
/** The node actor never stops itself (it idles after shutdown), so no step has `stop`. */
export type NodeStep = { readonly state: NodeState; readonly effects?: readonly NodeEffect[] };

export function initialNodeState(): NodeState {
  return {
    phase: 'running',
    uid: undefined,
    registered: false,
    registration: idleLoop,
    status: idleLoop,
    deletion: idleLoop,
    facts: undefined,
    readiness: undefined,
    readySince: 0,
    pressureSince: 0,
    previousReady: undefined,
    consecutiveFailures: 0,
    consecutiveSuccesses: 0,
    pingInFlight: false,
    lastPing: undefined,
    recreating: false,
  };
}

/** Every incarnation: register, ping at once, and start the ping and status timers. */
export function startNode(settings: NodeSettings, state: NodeState, now: number): NodeStep {
  const { config } = settings;
  return {
    state: { ...state, readySince: now, pressureSince: now, pingInFlight: true, registration: { ...idleLoop, inFlight: true } },
    effects: [
      { type: 'register' },
      { type: 'ping' },
      { type: 'schedule', ms: config.ping.intervalMs, msg: { type: 'node.ping-tick' } },
      { type: 'schedule', ms: config.statusIntervalMs, msg: { type: 'node.status-tick' } },
    ],
  };
}

export function decideNode(settings: NodeSettings, state: NodeState, msg: NodeMsg, now: number): NodeStep {
  switch (msg.type) {
    case 'node.ping-tick':
      return pingTick(settings, state);
    case 'node.pinged':
      return pingResult(settings, state, { ok: true }, now);
    case 'node.ping-failed':
      return pingResult(settings, state, { ok: false, error: msg.error }, now);
    case 'node.status-tick':
      if (state.phase !== 'running') return { state };
      return {
        state,
        effects: [
          { type: 'schedule', ms: settings.config.statusIntervalMs, msg: { type: 'node.status-tick' } },
          ...(state.registered ? [{ type: 'fetch-facts' } as const] : []),
        ],
      };
    case 'node.facts-fetched':
      return writeStatus(settings, { ...state, facts: msg.facts }, now);
    case 'node.facts-fetch-failed':
      // The heartbeat must not wait for the provider: write with the facts we have.
      return writeStatus(settings, state, now);
    case 'node.registered':
      return registered(settings, state, msg, now);
    case 'node.register-failed':
      return failed(settings, state, 'registration', msg, { type: 'node.retry-register' });
    case 'node.retry-register':
      return register(state, retryDue);
    case 'node.status-written':
      return statusWritten(settings, state, now);
    case 'node.status-write-failed':
      if (msg.gone) return nodeGone({ ...state, status: idleLoop });
      return failed(settings, state, 'status', msg, { type: 'node.retry-status' });
    case 'node.retry-status':
      return writeStatus(settings, state, now, retryDue);
    case 'node.observed':
      return observed(state, msg);
    case 'node.shutdown':
      if (state.phase !== 'running') return { state };
      if (!msg.deleteNode) return { state: { ...state, phase: 'stopped' } };
      return { state: { ...state, phase: 'shutting-down', deletion: { ...idleLoop, inFlight: true } }, effects: [{ type: 'delete-node' }] };
    case 'node.deleted':
      return { state: { ...state, phase: 'stopped', registered: false, deletion: idleLoop } };
    case 'node.delete-failed':
      return failed(settings, state, 'deletion', msg, { type: 'node.retry-delete' });
    case 'node.retry-delete': {
      if (state.phase !== 'shutting-down') return { state };
      const next = retryDue(state.deletion);
      return { state: { ...state, deletion: next.loop }, effects: next.start ? [{ type: 'delete-node' }] : [] };
    }
  }
}

function pingTick(settings: NodeSettings, state: NodeState): NodeStep {
  if (state.phase !== 'running') return { state };
  const next: NodeEffect = { type: 'schedule', ms: settings.config.ping.intervalMs, msg: { type: 'node.ping-tick' } };
  // A ping still waiting for its answer (at most timeoutMs) is not doubled.
  if (state.pingInFlight) return { state, effects: [next] };
  return { state: { ...state, pingInFlight: true }, effects: [next, { type: 'ping' }] };
}

function pingResult(settings: NodeSettings, state: NodeState, outcome: { ok: true } | { ok: false; error: string }, now: number): NodeStep {
  const lastPing = { at: now, ok: outcome.ok, error: outcome.ok ? undefined : outcome.error };
  const recorded: NodeState = { ...state, pingInFlight: false, lastPing };
  if (state.phase !== 'running') return { state: recorded };
  const { health, changed } = afterPing(state, outcome, settings.config.ping, settings.providerName);
  const next: NodeState = { ...recorded, ...health };
  if (!changed || !health.readiness) return { state: next };
  const readiness = health.readiness;
  // The first decision of an incarnation keeps the stored transition time if it agrees with it.
  const previous = state.readiness === undefined ? state.previousReady : undefined;
  const keep = previous !== undefined && previous.status === (readiness.ready ? 'True' : 'False');
  const flipped: NodeState = { ...next, readySince: keep ? previous.since : now };
  const written = writeStatus(settings, flipped, now);
  // The Event says the Node's Ready changed, as the kubelet's does: a first decision is a change
  // only against the Node as stored (not after a restart that finds it so), and every decision
  // made before the Node was read waits for registered() to compare the last one with it.
  const first = state.readiness === undefined;
  const changedOnNode = state.uid !== undefined && (!first || !keep);
  return {
    state: written.state,
    effects: [...(written.effects ?? []), { type: 'announce', readiness }, ...(changedOnNode ? [readinessEvent(readiness, state.uid)] : [])],
  };
}

function readinessEvent(readiness: Readiness, uid: string | undefined): NodeEffect {
  return readiness.ready
    ? { type: 'event', eventType: 'Normal', reason: 'NodeReady', note: readiness.message, action: 'Heartbeat', uid }
    : { type: 'event', eventType: 'Warning', reason: 'NodeNotReady', note: readiness.message, action: 'Heartbeat', uid };
}

function registered(settings: NodeSettings, state: NodeState, msg: Extract<NodeMsg, { type: 'node.registered' }>, now: number): NodeStep {
  const uid = msg.node.metadata?.uid;
  const ready = storedCondition(msg.node, 'Ready');
  const pressure = storedCondition(msg.node, 'MemoryPressure');
  const done = writeSucceeded(state.registration);
  // Readiness decided before the Node was read: if the Node already says the same, nothing has
  // transitioned from the cluster's point of view, so its transition time stands.
  const same = ready !== undefined && state.readiness !== undefined && ready.status === (state.readiness.ready ? 'True' : 'False');
  const next: NodeState = {
    ...state,
    readySince: same ? ready.since : state.readySince,
    uid,
    registered: true,
    recreating: false,
    facts: msg.facts ?? state.facts,
    registration: done.loop,
    previousReady: state.readiness === undefined ? ready : state.previousReady,
    pressureSince: pressure?.status === 'False' && !msg.created ? pressure.since : state.pressureSince,
  };
  const effects: NodeEffect[] = [];
  if (uid !== undefined) effects.push({ type: 'registered', uid });
  // Readiness decided before this incarnation first read the Node: its Event waited for this.
  if (state.uid === undefined && state.readiness !== undefined && !same) effects.push(readinessEvent(state.readiness, uid));
  if (state.recreating && msg.created) {
    effects.push({ type: 'event', eventType: 'Warning', reason: 'NodeRecreated', note: `Node ${settings.config.nodeName} was deleted; Tether created it again`, action: 'Register', uid });
  }
  if (done.start) effects.push({ type: 'register' });
  if (state.phase !== 'running') return { state: next, effects };
  // The first ping is on its way (answered or failed within ping.timeoutMs) and its decision
  // writes the status: one write at start, with Ready, as a starting kubelet makes.
  if (next.readiness === undefined && next.pingInFlight) return { state: next, effects };
  const written = writeStatus(settings, next, now);
  return { state: written.state, effects: [...effects, ...(written.effects ?? [])] };
}

function statusWritten(settings: NodeSettings, state: NodeState, now: number): NodeStep {
  const done = writeSucceeded(state.status);
  const next = { ...state, status: { ...done.loop, inFlight: false } };
  // Asked again while in flight: write once more, with a fresh heartbeat.
  return done.start ? writeStatus(settings, next, now) : { state: next };
}

/** Starts a status write if registered and running (otherwise registration will write it). */
function writeStatus(
  settings: NodeSettings,
  state: NodeState,
  now: number,
  ask: (loop: WriteLoop) => { loop: WriteLoop; start: boolean } = requestWrite,
): NodeStep {
  if (!state.registered || state.phase !== 'running') return { state: { ...state, status: { ...state.status, retryPending: false } } };
  const next = ask(state.status);
  const after = { ...state, status: next.loop };
  return { state: after, effects: next.start ? [{ type: 'write-status', status: statusPatch(settings, after, now) }] : [] };
}

function register(state: NodeState, ask: (loop: WriteLoop) => { loop: WriteLoop; start: boolean } = requestWrite): NodeStep {
  if (state.phase !== 'running') return { state: { ...state, registration: { ...state.registration, retryPending: false } } };
  const next = ask(state.registration);
  return { state: { ...state, registration: next.loop }, effects: next.start ? [{ type: 'register' }] : [] };
}

function nodeGone(state: NodeState): NodeStep {
  if (state.phase !== 'running') return { state };
  return register({ ...state, registered: false, recreating: true });
}

function observed(state: NodeState, msg: Extract<NodeMsg, { type: 'node.observed' }>): NodeStep {
  if (state.phase !== 'running') return { state };
  if (msg.node === undefined) {
    // A late deletion of a Node Tether has already replaced is old news.
    if (msg.deletedUid !== undefined && state.uid !== undefined && msg.deletedUid !== state.uid) return { state };
    return nodeGone(state);
  }
  const uid = msg.node.metadata?.uid;
  // Someone replaced the Node (a new uid): adopt it again (labels, status). Level-based: our own
  // registration in flight will report the uid it saw, so wait for it.
  if (state.registered && !state.registration.inFlight && uid !== undefined && uid !== state.uid) return register(state);
  return { state };
}

type LoopName = 'registration' | 'status' | 'deletion';

/** A failed write of loop `name`: back off (never sooner than the server's Retry-After), then `retry`. */
function failed(settings: NodeSettings, state: NodeState, name: LoopName, failure: { readonly error: string; readonly retryAfterMs?: number }, retry: NodeMsg): NodeStep {
  const { loop, retryAfterMs } = writeFailed(state[name], failure.error, settings.config.retry, `${settings.config.nodeName}/${name}`, failure.retryAfterMs);
  return { state: { ...state, [name]: loop }, effects: [{ type: 'schedule', ms: retryAfterMs, msg: retry }] };
}
