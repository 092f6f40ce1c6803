/**
 * A tiny stand-in for kube-apiserver: records every request, answers from per-test routes, and
 * can hold watch streams open so tests push events into them. HTTP or HTTPS (self-signed
 * fixture certificate for 127.0.0.1/localhost).
 */
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';

const here = path.dirname(fileURLToPath(import.meta.url));
export const fixtureCert = fs.readFileSync(path.join(here, 'fixtures', 'server.crt'), 'utf8');
const fixtureKey = fs.readFileSync(path.join(here, 'fixtures', 'server.key'), 'utf8');

export interface Recorded {
  readonly method: string;
  readonly url: URL;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

export interface Reply {
  readonly status?: number;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
}

/** A held-open watch stream. */
export interface WatchStream {
  readonly url: URL;
  /** The client closed it (or it was ended). */
  readonly closed: boolean;
  send(type: string, object: unknown): void;
  end(): void;
}

/** `'hang'`: accept the request and never answer (a frozen API server). A promise: answer when it settles (a slow server the test releases). */
export type Route = (req: Recorded) => Reply | Promise<Reply> | 'watch' | 'hang' | undefined;

export class MockApiServer {
  readonly requests: Recorded[] = [];
  readonly watches: WatchStream[] = [];
  /** Requests answered 'hang' whose client gave up (closed the request) before any answer. */
  readonly abandoned: Recorded[] = [];
  connections = 0;
  tlsHandshakes = 0;
  private routes: Route[] = [];
  private readonly server: http.Server;

  private constructor(readonly tls: boolean) {
    const handler = (req: http.IncomingMessage, res: http.ServerResponse): void => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => this.handle(req, res, Buffer.concat(chunks).toString('utf8')));
    };
    this.server = tls ? https.createServer({ cert: fixtureCert, key: fixtureKey }, handler) : http.createServer(handler);
    this.server.on('connection', () => (this.connections += 1));
    this.server.on('secureConnection', () => (this.tlsHandshakes += 1));
  }

  static async start(options: { tls?: boolean } = {}): Promise<MockApiServer> {
    const s = new MockApiServer(options.tls ?? false);
    await new Promise<void>((resolve) => s.server.listen(0, '127.0.0.1', resolve));
    return s;
  }

  get url(): string {
    const { port } = this.server.address() as AddressInfo;
    return `${this.tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  }

  /** Routes are tried newest first; the first to answer wins. */
  route(r: Route): void {
    this.routes.unshift(r);
  }

  /** The watches still open. */
  openWatches(): WatchStream[] {
    return this.watches.filter((w) => !w.closed);
  }

  /** Requests matching a method and a path (exact, without the query). */
  matching(method: string, pathname: string): Recorded[] {
    return this.requests.filter((r) => r.method === method && r.url.pathname === pathname);
  }

  kubeConfigYaml(): string {
    const cluster = this.tls
      ? `certificate-authority-data: ${Buffer.from(fixtureCert).toString('base64')}`
      : 'insecure-skip-tls-verify: true';
    return [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      `- name: mock`,
      `  cluster: {server: "${this.url}", ${cluster}}`,
      'users:',
      '- name: tester',
      '  user: {token: secret-token}',
      'contexts:',
      '- name: mock',
      '  context: {cluster: mock, user: tester}',
      'current-context: mock',
      '',
    ].join('\n');
  }

  kubeConfig(): KubeConfig {
    const kc = new KubeConfig();
    kc.loadFromString(this.kubeConfigYaml());
    return kc;
  }

  async close(): Promise<void> {
    for (const w of this.watches) w.end();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse, body: string): void {
    const rec: Recorded = { method: req.method ?? '', url: new URL(req.url ?? '/', 'http://x'), headers: req.headers, body };
    this.requests.push(rec);
    for (const r of this.routes) {
      const reply = r(rec);
      if (reply === undefined) continue;
      if (reply === 'watch') {
        this.openWatch(rec, res);
        return;
      }
      if (reply === 'hang') {
        res.once('close', () => this.abandoned.push(rec));
        return;
      }
      if (reply instanceof Promise) {
        void reply.then((later) => this.answer(res, later));
        return;
      }
      this.answer(res, reply);
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(status(404, 'NotFound', `the server could not find the requested resource ${rec.url.pathname}`)));
  }

  private answer(res: http.ServerResponse, reply: Reply): void {
    if (res.destroyed) return;
    res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
    res.end(reply.body === undefined ? '' : JSON.stringify(reply.body));
  }

  private openWatch(rec: Recorded, res: http.ServerResponse): void {
    res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    res.flushHeaders();
    let closed = false;
    res.once('close', () => (closed = true));
    const stream: WatchStream = {
      url: rec.url,
      get closed() {
        return closed;
      },
      send: (type, object) => res.write(JSON.stringify({ type, object }) + '\n'),
      end: () => res.end(),
    };
    this.watches.push(stream);
  }
}

/** A metav1.Status body as the apiserver sends with errors. */
export function status(code: number, reason: string, message: string): Record<string, unknown> {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
}

export function pod(name: string, rv: string, extra: { uid?: string; namespace?: string } = {}): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: extra.namespace ?? 'default', uid: extra.uid ?? `uid-${name}`, resourceVersion: rv },
    spec: { nodeName: 'vk-1', containers: [{ name: 'c', image: 'i' }] },
  };
}
