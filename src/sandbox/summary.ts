/** What the sandbox prints once it is up: where things are and what to paste. */
import { relative } from 'node:path';
import type { SandboxState } from './state.js';
import { DEMO, DEMO_CONFIG_DIR, DEMO_JOB_OUTPUT, DEMO_PORT } from './demo.js';
import { HOST_CLUSTER_ID, REMOTE_WORKER, VIRTUAL_NODE } from './topology.js';

/** The local port of the printed port-forward command (`:80` instead lets kubectl pick a free one). */
export const PORT_FORWARD_LOCAL_PORT = 8080;

export function summary(state: SandboxState, how: { detached: boolean; stateDirArg: string }): string {
  const kubectl = state.kubectl ?? 'kubectl';
  const host = state.clusters?.host;
  const remote = state.clusters?.remote;
  const ns = state.demo?.namespace ?? 'demo';
  const hostK = `KUBECONFIG=${host?.kubeconfig ?? '?'} ${kubectl}`;
  const remoteK = `KUBECONFIG=${remote?.kubeconfig ?? '?'} ${kubectl}`;
  // The provider's 'suffix' mapping (providers/kubernetes/namespaceMapping.ts); short names stay as they are.
  const remoteNs = `${ns}-${HOST_CLUSTER_ID}`;
  const job = state.demo?.job ?? DEMO.job;
  const cronJob = state.demo?.cronJob ?? DEMO.cronJob;
  const rel = (p: string | undefined): string => {
    if (p === undefined) return '?';
    const r = relative(process.cwd(), p);
    return r === '' ? '.' : r.startsWith('..') ? p : r;
  };
  const stop = how.detached
    ? `Stop it with: tether sandbox --down${how.stateDirArg}`
    : 'Press Ctrl-C to stop it and remove everything it started.';
  const netns = state.netns && state.netns.length > 0
    ? `Tether runs in network namespaces ${state.netns.join(', ')} (node InternalIPs are their addresses).`
    : `Tether runs on 127.0.0.1: network namespaces unavailable (${state.netnsUnavailable ?? 'unknown reason'}).`;
  return [
    `Tether sandbox is up${state.startupMs !== undefined ? ` (${(state.startupMs / 1000).toFixed(1)} s)` : ''}.`,
    '',
    `  host cluster    ${host?.server ?? '?'}   kubeconfig ${host?.kubeconfig ?? '?'}`,
    `  remote cluster  ${remote?.server ?? '?'}   kubeconfig ${remote?.kubeconfig ?? '?'}`,
    `  virtual node '${VIRTUAL_NODE}' (host) offloads to the remote cluster, where Tether node '${REMOTE_WORKER}' (simulated provider) runs the pods.`,
    `  demo: Deployment '${state.demo?.deployment ?? 'hello'}' (${state.demo?.replicas ?? 3} replicas) and Service '${state.demo?.service ?? 'hello'}', Job '${job}' and CronJob '${cronJob}' (every minute) in namespace '${ns}'`,
    '',
    'Try:',
    `  ${hostK} get pods -n ${ns} -o wide`,
    `  ${hostK} get nodes -o wide`,
    `  ${remoteK} get pods -A -o wide`,
    `  ${remoteK} get svc,endpointslices -n ${remoteNs}     (the host's Services, reflected: the offloaded pods reach them by name)`,
    `  ${hostK} get jobs,cronjobs -n ${ns}     (the simulated node runs their commands: the Job completes)`,
    `  ${hostK} scale deployment ${state.demo?.deployment ?? 'hello'} -n ${ns} --replicas=6`,
    '',
    `Introspection: ${state.introspectionUrl ?? `unavailable (${state.introspectionUnavailable ?? 'not configured'})`}`,
    `${netns}`,
    ...(state.netns && state.netns.length > 0
      ? [
          'Through the API server to the kubelet API (host Tether → remote API server → remote Tether):',
          `  ${hostK} logs -n ${ns} deploy/${state.demo?.deployment ?? 'hello'} --tail=5`,
          `  ${hostK} logs -n ${ns} job/${job}     (what the Job's command printed: ${DEMO_JOB_OUTPUT.join(' ')})`,
          `  ${hostK} exec -n ${ns} deploy/${state.demo?.deployment ?? 'hello'} -- cat ${DEMO_CONFIG_DIR}/greeting`,
          `  ${hostK} exec -it -n ${ns} deploy/${state.demo?.deployment ?? 'hello'} -- sh     (a simulated shell: echo, env, cat, ls, hostname, exit)`,
          `  ${hostK} port-forward -n ${ns} deploy/${state.demo?.deployment ?? 'hello'} ${PORT_FORWARD_LOCAL_PORT}:${DEMO_PORT}     (then, in another shell: curl -s http://127.0.0.1:${PORT_FORWARD_LOCAL_PORT}/)`,
          ...(state.metricsServer
            ? [
                'Usage through metrics-server (host Tether → the remote nodes\' /stats/summary through the remote API server):',
                `  ${hostK} top pod -n ${ns}`,
                `  ${hostK} top node`,
              ]
            : [`kubectl top: unavailable (${state.metricsServerUnavailable ?? 'metrics-server is not running'}).`]),
        ]
      : ['kubectl logs and exec: unavailable: the API server refuses to proxy to a loopback node address, and network namespaces need root.']),
    `State: ${rel(state.stateDir)}/state.json   Tether logs: ${rel(state.tether?.host?.log)}, ${rel(state.tether?.remote?.log)}`,
    '',
    stop,
  ].join('\n');
}
