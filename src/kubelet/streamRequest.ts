/**
 * The target and options of `/exec`, `/attach` and `/portForward` requests as the API server
 * forwards them (pod.ExecLocation, AttachLocation, PortForwardLocation in k8s.io/kubernetes):
 *   /exec/{namespace}/{pod}[/{uid}]/{container}?command=…&command=…&input=1&output=1&error=1&tty=1
 *   /attach/{namespace}/{pod}[/{uid}]/{container}?input=1&output=1…
 * `input`, `output` and `error` are the kubelet's names (api.ExecStdinParam…); `stdin`, `stdout`
 * and `stderr`, the API's own names, are taken too, for callers that reach the kubelet directly.
 *   /portForward/{namespace}/{pod}[/{uid}]?port=…
 */
/**
 * An exec, attach or port-forward the kubelet would refuse: a 400 whose body is the kubelet's own
 * sentence ("you must specify at least 1 of stdin, stdout, stderr"), which kubectl shows as it is;
 * so not a FieldProblem (logQuery.ts's InvalidLogQuery says why).
 */
export class InvalidStreamRequest extends Error {}

export type StreamKind = 'exec' | 'attach' | 'portForward';

export interface StreamTarget {
  readonly kind: StreamKind;
  readonly namespace: string;
  readonly pod: string;
  readonly uid?: string;
  /** exec and attach only. */
  readonly container?: string;
}

export interface StreamOptions {
  readonly stdin: boolean;
  readonly stdout: boolean;
  readonly stderr: boolean;
  readonly tty: boolean;
  /** exec only: the command and its arguments. */
  readonly command: readonly string[];
}

/** The target of a streaming path, from its decoded segments (requestTarget.ts), or undefined when the path is not one. */
export function streamTarget(segments: readonly string[]): StreamTarget | undefined {
  const parts = [...segments];
  if (parts.at(-1) === '') parts.pop();
  const [kind, namespace, pod, ...rest] = parts;
  if (!namespace || !pod || rest.some((p) => p === '')) return undefined;
  if (kind === 'exec' || kind === 'attach') {
    if (rest.length === 1) return { kind, namespace, pod, container: rest[0] as string };
    if (rest.length === 2) return { kind, namespace, pod, uid: rest[0] as string, container: rest[1] as string };
    return undefined;
  }
  if (kind === 'portForward') {
    if (rest.length === 0) return { kind, namespace, pod };
    if (rest.length === 1) return { kind, namespace, pod, uid: rest[0] as string };
  }
  return undefined;
}

function flag(params: URLSearchParams, name: string): boolean {
  const raw = params.get(name);
  if (raw === null || raw === '' || raw === 'false' || raw === '0') return false;
  if (raw === 'true' || raw === '1') return true;
  throw new InvalidStreamRequest(`${name} must be true or false, got ${JSON.stringify(raw)}`);
}

/** The options of an exec or attach; rejects requests that could never work, as the kubelet does. */
export function parseStreamOptions(kind: 'exec' | 'attach', params: URLSearchParams): StreamOptions {
  const tty = flag(params, 'tty');
  const options = {
    stdin: flag(params, 'input') || flag(params, 'stdin'),
    stdout: flag(params, 'output') || flag(params, 'stdout'),
    // A terminal has one output: stderr is dropped with tty, as the kubelet does.
    stderr: (flag(params, 'error') || flag(params, 'stderr')) && !tty,
    tty,
    command: kind === 'exec' ? params.getAll('command') : [],
  };
  if (!options.stdin && !options.stdout && !options.stderr) throw new InvalidStreamRequest('you must specify at least 1 of stdin, stdout, stderr');
  if (kind === 'exec' && options.command.length === 0) throw new InvalidStreamRequest('you must specify a command (the command query parameter)');
  return options;
}
