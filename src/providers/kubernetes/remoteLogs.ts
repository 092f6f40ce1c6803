/**
 * Container logs streamed from the remote API server (client-node's `Log`), re-chunked into whole
 * lines as the LogsProvider contract asks. The request is made before the promise resolves, so
 * an unknown pod or container rejects (notFound / invalidInput) before any output.
 */
import { PassThrough } from 'node:stream';
import { Log } from '@kubernetes/client-node';
import type { ContainerLogOptions } from '../provider.js';
import type { ClusterClient } from './clusterClient.js';
import { toProviderError } from './remoteErrors.js';

export async function streamRemoteLogs(
  remote: ClusterClient,
  target: { readonly namespace: string; readonly pod: string; readonly container: string },
  options: ContainerLogOptions,
  signal?: AbortSignal,
): Promise<AsyncIterable<string>> {
  const sink = new PassThrough();
  const operation = `logs of container ${target.container} of remote pod ${target.namespace}/${target.pod}`;
  let controller: AbortController;
  try {
    controller = await new Log(remote.kubeConfig).log(target.namespace, target.pod, target.container, sink, {
      follow: options.follow ?? false,
      timestamps: options.timestamps ?? false,
      previous: options.previous ?? false,
      ...(options.tailLines !== undefined ? { tailLines: options.tailLines } : {}),
      ...(options.sinceSeconds !== undefined ? { sinceSeconds: options.sinceSeconds } : {}),
      ...(options.limitBytes !== undefined ? { limitBytes: options.limitBytes } : {}),
    });
  } catch (err) {
    sink.destroy();
    throw toProviderError(err, operation);
  }
  const stop = (): void => {
    controller.abort();
    sink.end();
  };
  if (signal?.aborted) stop();
  else signal?.addEventListener('abort', stop, { once: true });
  return wholeLines(sink, () => signal?.removeEventListener('abort', stop));
}

/** Chunks of whole lines; a trailing partial line (limitBytes, or no final newline) comes last. */
export async function* wholeLines(source: AsyncIterable<Buffer | string>, onEnd: () => void = () => undefined): AsyncGenerator<string> {
  let carry = '';
  const decoder = new TextDecoder();
  try {
    for await (const chunk of source) {
      carry += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
      const cut = carry.lastIndexOf('\n');
      if (cut < 0) continue;
      yield carry.slice(0, cut + 1);
      carry = carry.slice(cut + 1);
    }
    carry += decoder.decode();
    if (carry !== '') yield carry;
  } catch {
    // An aborted stream ends quietly, as the contract asks.
  } finally {
    onEnd();
  }
}
