/**
 * Loading a KubeConfig, with errors a person can act on.
 *
 * client-node's own loaders report problems as "clusters[0].cluster.server is missing" or crash
 * with a TypeError on an empty file, and `loadFromDefault` silently falls back to
 * http://localhost:8080. Here every source is validated first, and every failure is a
 * {@link KubeconfigError} whose message names the source and the field:
 * "kubeconfig /x/y: current-context 'foo' not found".
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KubeConfig, loadYaml } from '@kubernetes/client-node';
import { errorCode, errorMessage } from '../../lib/errorMessage.js';
import { ClientKubeConfig } from './clientKubeConfig.js';

/** Where to load a kubeconfig from. `context` overrides the file's current-context. */
export type KubeconfigSource =
  | { readonly kind: 'file'; readonly path: string; readonly context?: string }
  | { readonly kind: 'string'; readonly yaml: string; readonly context?: string; readonly label?: string }
  | { readonly kind: 'inCluster'; readonly pathPrefix?: string; readonly env?: NodeJS.ProcessEnv }
  | {
      readonly kind: 'default';
      readonly context?: string;
      readonly env?: NodeJS.ProcessEnv;
      readonly homeDir?: string;
      readonly inClusterPathPrefix?: string;
    };

/** A kubeconfig that cannot be used. `message` is one line and names the source and the field. */
export class KubeconfigError extends Error {
  override readonly name = 'KubeconfigError';
  constructor(
    readonly source: string,
    readonly problem: string,
  ) {
    super(`${source}: ${problem}`);
  }
}

const SA_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/**
 * Loads and validates a KubeConfig. Throws only {@link KubeconfigError}.
 * The `default` source checks `$KUBECONFIG` (files merged, first wins), then `~/.kube/config`,
 * then in-cluster; unlike client-node it never falls back to localhost:8080.
 */
export function loadKubeConfig(source: KubeconfigSource): KubeConfig {
  switch (source.kind) {
    case 'file':
      return fromFiles([source.path], source.context);
    case 'string':
      return fromYaml(source.label ?? 'kubeconfig <inline>', source.yaml, undefined, source.context);
    case 'inCluster':
      return fromCluster(source.pathPrefix ?? '', source.env ?? process.env);
    case 'default':
      return fromDefault(source);
  }
}

function fromDefault(source: Extract<KubeconfigSource, { kind: 'default' }>): KubeConfig {
  const env = source.env ?? process.env;
  const fromEnv = (env.KUBECONFIG ?? '').split(path.delimiter).filter((f) => f.length > 0);
  if (fromEnv.length > 0) return fromFiles(fromEnv, source.context);
  const home = source.homeDir ?? os.homedir();
  const homeConfig = path.join(home, '.kube', 'config');
  if (fs.existsSync(homeConfig)) return fromFiles([homeConfig], source.context);
  const prefix = source.inClusterPathPrefix ?? '';
  if (fs.existsSync(`${prefix}${SA_DIR}/token`)) return fromCluster(prefix, env);
  throw new KubeconfigError(
    'kubeconfig',
    `none found (checked $KUBECONFIG, ${homeConfig}, and the in-cluster service account)`,
  );
}

function fromFiles(files: readonly string[], context: string | undefined): KubeConfig {
  const [first, ...rest] = files.map((file) => {
    const label = `kubeconfig ${file}`;
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (err) {
      throw new KubeconfigError(label, `cannot read file (${errnoOf(err)})`);
    }
    return { label, text, dir: path.dirname(path.resolve(file)) };
  });
  if (!first) throw new KubeconfigError('kubeconfig', 'no file given');
  if (rest.length === 0) return fromYaml(first.label, first.text, first.dir, context);
  // Validate each file's own entries, then merge as kubectl does (first file's current-context).
  const kc = parseInto(first.label, first.text, first.dir);
  for (const f of rest) {
    const other = parseInto(f.label, f.text, f.dir);
    try {
      kc.mergeConfig(other, true);
    } catch (err) {
      throw new KubeconfigError(f.label, errorMessage(err));
    }
  }
  checkSelection(`kubeconfig ${files.join(path.delimiter)}`, kc, context);
  return kc;
}

function fromYaml(label: string, text: string, dir: string | undefined, context: string | undefined): KubeConfig {
  const kc = parseInto(label, text, dir);
  checkSelection(label, kc, context);
  return kc;
}

/** Parses and validates the raw document, then lets client-node build the KubeConfig. */
function parseInto(label: string, text: string, dir: string | undefined): KubeConfig {
  let raw: unknown;
  try {
    raw = loadYaml<unknown>(text);
  } catch (err) {
    const first = errorMessage(err).split('\n')[0] ?? '';
    throw new KubeconfigError(label, first === 'Failed to load YAML' ? 'file is empty' : `invalid YAML: ${first}`);
  }
  validateRaw(label, raw, dir);
  const kc = new ClientKubeConfig();
  try {
    kc.loadFromString(text);
    if (dir !== undefined) kc.makePathsAbsolute(dir);
  } catch (err) {
    throw new KubeconfigError(label, errorMessage(err));
  }
  return kc;
}

type RawEntry = Record<string, unknown>;

function validateRaw(label: string, raw: unknown, dir: string | undefined): void {
  if (!isRecord(raw)) throw new KubeconfigError(label, 'not a kubeconfig (expected a YAML mapping)');
  const fail = (problem: string): never => {
    throw new KubeconfigError(label, problem);
  };
  const resolve = (p: string): string => (dir === undefined ? p : path.resolve(dir, p));
  const clusters = entries(raw, 'clusters', fail);
  for (const [i, c] of clusters.entries()) {
    const name = nameOf(c, `clusters[${i}]`, fail);
    const body = isRecord(c.cluster) ? c.cluster : fail(`cluster '${name}' has no 'cluster' section`);
    const server = body.server;
    if (typeof server !== 'string' || server === '') fail(`cluster '${name}' has no server`);
    let url: URL | undefined;
    try {
      url = new URL(String(server));
    } catch {
      fail(`cluster '${name}': server '${String(server)}' is not a URL`);
    }
    if (url?.protocol === 'http:' && body['insecure-skip-tls-verify'] !== true) {
      fail(`cluster '${name}': server is http:// but insecure-skip-tls-verify is not true (client-node refuses this)`);
    }
    checkFile(body['certificate-authority'], `cluster '${name}': certificate-authority`, resolve, fail);
  }
  const users = entries(raw, 'users', fail);
  for (const [i, u] of users.entries()) {
    const name = nameOf(u, `users[${i}]`, fail);
    const body = isRecord(u.user) ? u.user : {};
    checkFile(body['client-certificate'], `user '${name}': client-certificate`, resolve, fail);
    checkFile(body['client-key'], `user '${name}': client-key`, resolve, fail);
    checkFile(body.tokenFile, `user '${name}': tokenFile`, resolve, fail);
  }
  const clusterNames = new Set(clusters.map((c) => c.name));
  const userNames = new Set(users.map((u) => u.name));
  for (const [i, c] of entries(raw, 'contexts', fail).entries()) {
    const name = nameOf(c, `contexts[${i}]`, fail);
    const body = isRecord(c.context) ? c.context : fail(`context '${name}' has no 'context' section`);
    if (typeof body.cluster !== 'string' || body.cluster === '') fail(`context '${name}' has no cluster`);
    if (!clusterNames.has(body.cluster)) fail(`context '${name}': cluster '${String(body.cluster)}' not found`);
    if (body.user !== undefined && body.user !== '' && !userNames.has(body.user)) {
      fail(`context '${name}': user '${String(body.user)}' not found`);
    }
  }
}

/** Applies the context override and checks that the current context resolves to a cluster. */
function checkSelection(label: string, kc: KubeConfig, context: string | undefined): void {
  if (context !== undefined) {
    if (!kc.getContextObject(context)) throw new KubeconfigError(label, `context '${context}' not found`);
    kc.setCurrentContext(context);
  }
  const current = kc.getCurrentContext() as string | undefined;
  if (current === undefined || current === '') throw new KubeconfigError(label, 'no current-context set');
  if (!kc.getContextObject(current)) throw new KubeconfigError(label, `current-context '${current}' not found`);
  if (!kc.getCurrentCluster()) throw new KubeconfigError(label, `current-context '${current}' has no usable cluster`);
}

function fromCluster(prefix: string, env: NodeJS.ProcessEnv): KubeConfig {
  const label = 'in-cluster config';
  if (!env.KUBERNETES_SERVICE_HOST) throw new KubeconfigError(label, 'KUBERNETES_SERVICE_HOST is not set');
  if (!env.KUBERNETES_SERVICE_PORT) throw new KubeconfigError(label, 'KUBERNETES_SERVICE_PORT is not set');
  for (const file of ['token', 'ca.crt']) {
    const p = `${prefix}${SA_DIR}/${file}`;
    try {
      fs.accessSync(p, fs.constants.R_OK);
    } catch (err) {
      throw new KubeconfigError(label, `service account ${file} ${p} is not readable (${errnoOf(err)})`);
    }
  }
  // client-node reads KUBERNETES_SERVICE_* from process.env only.
  const saved = { host: process.env.KUBERNETES_SERVICE_HOST, port: process.env.KUBERNETES_SERVICE_PORT };
  process.env.KUBERNETES_SERVICE_HOST = env.KUBERNETES_SERVICE_HOST;
  process.env.KUBERNETES_SERVICE_PORT = env.KUBERNETES_SERVICE_PORT;
  try {
    const kc = new ClientKubeConfig();
    kc.loadFromCluster(prefix);
    return kc;
  } finally {
    restoreEnv('KUBERNETES_SERVICE_HOST', saved.host);
    restoreEnv('KUBERNETES_SERVICE_PORT', saved.port);
  }
}

function restoreEnv(key: string, value: string | undefined): void {
  if (value === undefined) delete process.env[key];
  else process.env[key] = value;
}

function entries(raw: RawEntry, key: string, fail: (p: string) => never): RawEntry[] {
  const v = raw[key];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) return fail(`'${key}' is not a list`);
  return v.map((e: unknown, i) => (isRecord(e) ? e : fail(`${key}[${i}] is not a mapping`)));
}

function nameOf(e: RawEntry, where: string, fail: (p: string) => never): string {
  return typeof e.name === 'string' && e.name !== '' ? e.name : fail(`${where} has no name`);
}

function checkFile(
  value: unknown,
  what: string,
  resolve: (p: string) => string,
  fail: (p: string) => never,
): void {
  if (typeof value !== 'string' || value === '') return;
  const p = resolve(value);
  try {
    fs.accessSync(p, fs.constants.R_OK);
  } catch (err) {
    fail(`${what} ${p} is not readable (${errnoOf(err)})`);
  }
}

function isRecord(v: unknown): v is RawEntry {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}


function errnoOf(err: unknown): string {
  return errorCode(err) ?? errorMessage(err);
}
