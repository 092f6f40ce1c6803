/**
 * The config file's `kubeletApi` bounds (seconds, as written there) as the kubelet server's
 * options (milliseconds). Shaped structurally so this layer needs nothing from src/config.
 */
import type { KubeletServerOptions } from './kubeletServer.js';
import type { StreamLimitOptions } from './streamRoutes.js';
import { definedOnly, ifDefined } from '../lib/defaults.js';

export interface KubeletApiSettings {
  readonly requestTimeoutSeconds?: number | undefined;
  readonly streams?: {
    readonly maxPerNode?: number | undefined;
    readonly maxPerUser?: number | undefined;
    readonly maxPerPod?: number | undefined;
    readonly idleTimeoutSeconds?: number | undefined;
    readonly maxSessionSeconds?: number | undefined;
    readonly maxMessageBytes?: number | undefined;
  } | undefined;
}

export function kubeletServerLimits(settings: KubeletApiSettings | undefined): Pick<KubeletServerOptions, 'streams' | 'requestTimeoutMs'> {
  const s = settings?.streams;
  const streams: { -readonly [K in keyof StreamLimitOptions]: StreamLimitOptions[K] } = {};
  if (s?.maxPerNode !== undefined) streams.maxConcurrentStreams = s.maxPerNode;
  if (s?.maxPerUser !== undefined) streams.maxStreamsPerUser = s.maxPerUser;
  if (s?.maxPerPod !== undefined) streams.maxStreamsPerPod = s.maxPerPod;
  if (s?.idleTimeoutSeconds !== undefined) streams.streamIdleTimeoutMs = s.idleTimeoutSeconds * 1000;
  if (s?.maxSessionSeconds !== undefined) streams.maxSessionMs = s.maxSessionSeconds * 1000;
  if (s?.maxMessageBytes !== undefined) streams.maxMessageBytes = s.maxMessageBytes;
  return {
    streams,
    ...definedOnly({ requestTimeoutMs: ifDefined(settings?.requestTimeoutSeconds, (s) => s * 1000) }),
  };
}
