/**
 * One GET against a component's health endpoint. The API server, controller manager and scheduler
 * serve TLS with the cluster's serving certificate, so the probe verifies it against the cluster
 * CA and authenticates as admin; etcd serves plain HTTP on loopback.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface ProbeTls {
  ca: string;
  cert: string;
  key: string;
}

export interface ProbeResult {
  status: number;
  body: string;
}

export function probe(url: string, tls?: ProbeTls, timeoutMs = 5_000): Promise<ProbeResult> {
  return new Promise((resolve, reject) => {
    const onResponse = (res: import('node:http').IncomingMessage): void => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    };
    const req = url.startsWith('https:')
      ? httpsRequest(url, { ...tls, timeout: timeoutMs, agent: false }, onResponse)
      : httpRequest(url, { timeout: timeoutMs, agent: false }, onResponse);
    req.on('timeout', () => req.destroy(new Error(`GET ${url} timed out after ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end();
  });
}

/** Resolves true when GET `url` answers 200, false otherwise (connection refused included). */
export async function isHealthy(url: string, tls?: ProbeTls): Promise<boolean> {
  try {
    return (await probe(url, tls)).status === 200;
  } catch {
    return false;
  }
}
