/**
 * The simulated answers to network probes, in the kubelet's words (pkg/probe/http, tcp, grpc and
 * probe.ResolveContainerPort, v1.36.3): a 3xx is a redirect the prober does not follow (success
 * with a warning, the body kept to 10 KiB), any other status outside 200–399 fails, a late answer
 * times out as each client says it, and a port that does not resolve is a probe error.
 */
import t from 'tap';
import type { Pod } from '../../../../src/adapters/kubernetes/model.js';
import { answerProbe, parseProbeResponses } from '../../../../src/providers/simulated/probes/probeResponses.js';
import type { Container, Probe, ProbeKind } from '../../../../src/providers/simulated/probes/probeWorker.js';

const main: Container = { name: 'main', ports: [{ name: 'web', containerPort: 80 }, { containerPort: 9000 }] };
const side: Container = { name: 'side' };

function podWith(responses: unknown): Pod {
  return {
    metadata: { name: 'p', namespace: 'ns', annotations: { 'sim.tether.dev/probe-responses': JSON.stringify(responses) } },
    spec: { containers: [main, side] },
    status: { podIP: '10.244.0.2' },
  };
}

function answer(responses: unknown, probe: Probe, container = main, kind: ProbeKind = 'readiness'): ReturnType<typeof answerProbe> {
  const pod = podWith(responses);
  return answerProbe(pod, parseProbeResponses(pod), container, kind, probe);
}

const http: Probe = { httpGet: { path: '/healthz', port: 80 } };

void t.test('httpGet: 2xx succeeds; a 3xx is a redirect not followed: success with the kubelet\'s warning and the body', async (t) => {
  t.same(answer({}, http), { result: 'success', message: '', delayMs: 0 });
  t.same(answer({ main: { readiness: { status: 204 } } }, http), { result: 'success', message: '', delayMs: 0 });
  t.same(answer({ main: { readiness: { status: 301, body: 'moved to https://elsewhere/' } } }, http),
    { result: 'warning', message: 'Probe terminated redirects, Response body: moved to https://elsewhere/', delayMs: 0 });
  t.same(answer({ main: { readiness: { status: 302 } } }, http), { result: 'warning', message: 'Probe terminated redirects, Response body: ', delayMs: 0 });
});

void t.test('httpGet: the body in a warning is kept to the kubelet\'s 10 KiB', async (t) => {
  const long = `${'x'.repeat(10 * 1024)}never shown`;
  const got = answer({ main: { readiness: { status: 307, body: long } } }, http);
  t.equal(got.message, `Probe terminated redirects, Response body: ${'x'.repeat(10 * 1024)}`);
});

void t.test('httpGet: any status outside 200–399 fails with its code and never the body', async (t) => {
  for (const status of [101, 199, 400, 404, 500, 503]) {
    t.same(answer({ main: { readiness: { status, body: 'secret detail' } } }, http), { result: 'failure', message: `HTTP probe failed with statuscode: ${status}`, delayMs: 0 }, String(status));
  }
});

void t.test('a refused connection, per probe type', async (t) => {
  t.same(answer({ main: { readiness: 'failure' } }, http), { result: 'failure', message: 'Get "http://10.244.0.2:80/healthz": dial tcp 10.244.0.2:80: connect: connection refused', delayMs: 0 });
  t.same(answer({}, { tcpSocket: { port: 81 } }), { result: 'failure', message: 'dial tcp 10.244.0.2:81: connect: connection refused', delayMs: 0 });
  t.same(answer({}, { grpc: { port: 9001 }, timeoutSeconds: 2 }), { result: 'failure', message: 'timeout: failed to connect service "10.244.0.2:9001" within 2s: context deadline exceeded', delayMs: 2000 }, 'gRPC blocks until its timeout');
});

void t.test('an answer at or past timeoutSeconds times out in each client\'s words, at the timeout', async (t) => {
  const late = { main: { readiness: { delayMs: 5000 } } };
  t.same(answer(late, { ...http, timeoutSeconds: 2 }), { result: 'failure', message: 'Get "http://10.244.0.2:80/healthz": context deadline exceeded (Client.Timeout exceeded while awaiting headers)', delayMs: 2000 });
  t.same(answer(late, { tcpSocket: { port: 80 } }), { result: 'failure', message: 'dial tcp 10.244.0.2:80: i/o timeout', delayMs: 1000 });
  t.same(answer(late, { grpc: { port: 9000 } }), { result: 'failure', message: 'timeout: health rpc did not complete within 1s', delayMs: 1000 });
  t.same(answer({ main: { readiness: { delayMs: 999 } } }, http), { result: 'success', message: '', delayMs: 999 }, 'just in time');
});

void t.test('a named port resolves against the probed container only; one that does not resolve is a probe error', async (t) => {
  t.same(answer({}, { httpGet: { path: '/', port: 'web' } }), { result: 'success', message: '', delayMs: 0 });
  t.same(answer({}, { tcpSocket: { port: '80' } }, side), { result: 'success', message: '', delayMs: 0 }, 'a number written as a string');
  t.same(answer({}, { httpGet: { path: '/', port: 'web' } }, side), { result: 'error', message: 'strconv.Atoi: parsing "web": invalid syntax', delayMs: 0 }, 'web is main\'s port, not side\'s');
  t.same(answer({}, { tcpSocket: { port: 0 } }), { result: 'error', message: 'invalid port number: 0', delayMs: 0 });
  t.same(answer({}, { tcpSocket: { port: 70000 } }), { result: 'error', message: 'invalid port number: 70000', delayMs: 0 });
});

void t.test('the annotation\'s body must be a string', async (t) => {
  t.throws(() => parseProbeResponses(podWith({ main: { readiness: { body: 3 } } })), { message: 'annotation sim.tether.dev/probe-responses: main.readiness.body must be a string' });
  t.throws(() => parseProbeResponses(podWith({ web: { readiness: { status: 42 } } })), { message: 'annotation sim.tether.dev/probe-responses: web.readiness.status must be an HTTP status code (100–599)' }, 'as the README shows it');
});
