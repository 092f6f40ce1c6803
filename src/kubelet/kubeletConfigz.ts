/**
 * `/configz` of a virtual node, in the kubelet's shape (component-base's configz handler: every
 * registered config by name; the kubelet registers `kubeletconfig`, a v1beta1
 * KubeletConfiguration with its kind and apiVersion): `{"kubeletconfig": {...}}`.
 * Only the fields Tether's kubelet API actually behaves by, each as the kubelet writes it
 * (durations in Go's format, `4h0m0s`): where it serves, how it authenticates and authorizes
 * (webhook both, anonymous off, the kubelet's cache lifetimes, which boundedReviewer.ts keeps),
 * and the streaming idle timeout. Fields that describe a container runtime, cgroups, eviction or
 * images are left out rather than invented: a virtual node has none of its own.
 */
import { AUTHENTICATED_TOKEN_TTL_MS, AUTHORIZED_TTL_MS, UNAUTHORIZED_TTL_MS } from './boundedReviewer.js';

export interface ConfigzInputs {
  readonly address: string;
  readonly port: number;
  /** The streams' idle timeout (the kubelet's streamingConnectionIdleTimeout). */
  readonly streamingIdleTimeoutMs: number;
}

/** A duration as Go's time.Duration prints it: `4h0m0s`, `2m0s`, `30s`, `1.5s`, `250ms`, `0s`. */
export function goDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1000) return `${ms}ms`;
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor((ms % 3_600_000) / 60_000);
  const seconds = (ms % 60_000) / 1000;
  if (hours > 0) return `${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${minutes}m${seconds}s`;
  return `${seconds}s`;
}

export function kubeletConfigz(inputs: ConfigzInputs): { readonly kubeletconfig: Record<string, unknown> } {
  return {
    kubeletconfig: {
      kind: 'KubeletConfiguration',
      apiVersion: 'kubelet.config.k8s.io/v1beta1',
      enableServer: true,
      address: inputs.address,
      port: inputs.port,
      readOnlyPort: 0,
      authentication: {
        x509: {},
        webhook: { enabled: true, cacheTTL: goDuration(AUTHENTICATED_TOKEN_TTL_MS) },
        anonymous: { enabled: false },
      },
      authorization: {
        mode: 'Webhook',
        webhook: { cacheAuthorizedTTL: goDuration(AUTHORIZED_TTL_MS), cacheUnauthorizedTTL: goDuration(UNAUTHORIZED_TTL_MS) },
      },
      streamingConnectionIdleTimeout: goDuration(inputs.streamingIdleTimeoutMs),
      enableDebuggingHandlers: true,
    },
  };
}
