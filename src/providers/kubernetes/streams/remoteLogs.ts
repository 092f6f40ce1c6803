/**
 * Container logs streamed from the remote API server (`GET .../pods/{pod}/log`, as kubectl asks
 * for them), re-chunked into whole lines as the LogsProvider contract asks. The promise resolves
 * once the remote has answered 200, so an unknown pod or container rejects (notFound /
 * invalidInput, with the remote's message) before any output.
 *
 * Bounded: the open has a deadline (`openTimeoutMs`, 30 s: a remote that never answers rejects
 * transient, which the kubelet route answers 503); the caller's signal abandons the request
 * whether it is still opening or already streaming; a refusal's body is read up to
 * MAX_REFUSAL_BODY_BYTES; the stream is read as fast as the caller takes it (backpressure down
 * to the remote's socket); a line longer than MAX_PARTIAL_LINE_BYTES comes out in pieces.
 * client-node's `Log` takes no signal and resolves only once the remote has answered, hence a
 * plain request with the kubeconfig's TLS and credentials.
 */
import http from 'node:http';
import https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { onAbort } from '../../../lib/abortFanOut.js';
import { invalidInput, transient } from '../../errors.js';
import type { ContainerLogOptions } from '../../provider.js';
import { boundedBody, refusal } from './remoteRefusal.js';

/** How long the remote may take to answer a log request (its headers). */
export const LOG_OPEN_TIMEOUT_MS = 30_000;
/** A line without its newline yet is held up to this many characters, then passed on as it is. */
export const MAX_PARTIAL_LINE_BYTES = 64 * 1024;

export interface RemoteLogOptions {
  readonly openTimeoutMs?: number;
}

function logUrl(server: string, target: LogTarget, options: ContainerLogOptions): URL {
  const url = new URL(`${server.replace(/\/$/, '')}/api/v1/namespaces/${encodeURIComponent(target.namespace)}/pods/${encodeURIComponent(target.pod)}/log`);
  const query = url.searchParams;
  query.set('container', target.container);
  if (options.follow) query.set('follow', 'true');
  if (options.timestamps) query.set('timestamps', 'true');
  if (options.previous) query.set('previous', 'true');
  if (options.tailLines !== undefined) query.set('tailLines', String(options.tailLines));
  if (options.sinceSeconds !== undefined) query.set('sinceSeconds', String(options.sinceSeconds));
  if (options.limitBytes !== undefined) query.set('limitBytes', String(options.limitBytes));
  return url;
}

interface LogTarget {
  readonly namespace: string;
  readonly pod: string;
  readonly container: string;
}

/** The remote's answer to GET `url`, or a rejection with `signal`'s reason once it aborts. */
async function requestLog(kubeConfig: KubeConfig, url: URL, signal: AbortSignal): Promise<http.IncomingMessage> {
  const options: https.RequestOptions = {};
  await kubeConfig.applyToHTTPSOptions(options);
  const plain = url.protocol === 'http:';
  // client-node builds an https agent unless the cluster skips TLS verification: not for http.
  if (plain && options.agent instanceof https.Agent) delete options.agent;
  signal.throwIfAborted();
  return new Promise((resolve, reject) => {
    const request = (plain ? http : https).get(url, { ...options, signal }, resolve);
    // `on`, not `once`: an abort after the answer errors the request again (the stream ends quietly).
    request.on('error', (error) => reject(signal.aborted ? signal.reason : error));
  });
}

export async function streamRemoteLogs(
  remote: { readonly kubeConfig: KubeConfig },
  target: LogTarget,
  options: ContainerLogOptions,
  signal?: AbortSignal,
  limits: RemoteLogOptions = {},
): Promise<AsyncIterable<string>> {
  signal?.throwIfAborted();
  const operation = `logs of container ${target.container} of remote pod ${target.namespace}/${target.pod}`;
  const server = remote.kubeConfig.getCurrentCluster()?.server;
  if (!server) throw invalidInput(`${operation}: the remote kubeconfig names no server`);
  const openTimeoutMs = limits.openTimeoutMs ?? LOG_OPEN_TIMEOUT_MS;
  const request = new AbortController();
  const leave = signal ? onAbort(signal, () => request.abort(signal.reason)) : (): void => undefined;
  const deadline = setTimeout(() => request.abort(transient(`${operation}: the remote API server did not answer within ${openTimeoutMs} ms`)), openTimeoutMs);
  let res: http.IncomingMessage;
  try {
    res = await requestLog(remote.kubeConfig, logUrl(server, target, options), request.signal);
  } catch (error) {
    leave();
    if (request.signal.aborted) throw request.signal.reason;
    throw transient(`${operation}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  } finally {
    clearTimeout(deadline);
  }
  if (res.statusCode !== 200) {
    const body = await boundedBody(res);
    leave();
    res.destroy();
    throw refusal(res.statusCode ?? 0, body, operation);
  }
  return wholeLines(res, () => {
    leave();
    res.destroy();
  });
}

/**
 * Chunks of whole lines; a trailing partial line (limitBytes, or no final newline) comes last, and
 * a line longer than MAX_PARTIAL_LINE_BYTES in pieces of about that size.
 */
export async function* wholeLines(source: AsyncIterable<Buffer | string>, onEnd: () => void = () => undefined): AsyncGenerator<string> {
  let carry = '';
  const decoder = new TextDecoder();
  try {
    for await (const chunk of source) {
      carry += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
      const cut = carry.lastIndexOf('\n');
      if (cut >= 0) {
        yield carry.slice(0, cut + 1);
        carry = carry.slice(cut + 1);
      }
      if (carry.length >= MAX_PARTIAL_LINE_BYTES) {
        yield carry;
        carry = '';
      }
    }
    carry += decoder.decode();
    if (carry !== '') yield carry;
  } catch {
    // An aborted stream ends quietly, as the contract asks.
  } finally {
    onEnd();
  }
}
