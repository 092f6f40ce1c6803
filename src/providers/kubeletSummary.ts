/**
 * The kubelet's `/stats/summary` wire format (stats/v1alpha1 Summary, the subset Tether reads and
 * writes: cpu and memory of the node, pods and containers) and its translation to and from the
 * providers' StatsSummary. Tether's kubelet API writes it; the Kubernetes provider reads it from
 * the remote cluster's kubelets (real or Tether) through the node proxy, so bad input gets an
 * error naming the source and the field.
 */
import type { ContainerStats, PodStats, StatsSummary, UsageStats } from './provider.js';
import { definedOnly } from '../lib/defaults.js';

export interface KubeletCpuStats {
  readonly time: string;
  readonly usageNanoCores?: number;
  readonly usageCoreNanoSeconds?: number;
}

export interface KubeletMemoryStats {
  readonly time: string;
  readonly workingSetBytes?: number;
}

interface Usage {
  readonly cpu?: KubeletCpuStats;
  readonly memory?: KubeletMemoryStats;
}

export interface KubeletContainerStats extends Usage {
  readonly name: string;
  readonly startTime: string;
}

export interface KubeletPodStats extends Usage {
  readonly podRef: { readonly namespace: string; readonly name: string; readonly uid: string };
  readonly startTime: string;
  readonly containers: readonly KubeletContainerStats[];
}

export interface KubeletSummary {
  readonly node: Usage & { readonly nodeName: string; readonly startTime: string };
  readonly pods: readonly KubeletPodStats[];
}

/** A summary that is not in the kubelet's format: `field` names where (e.g. `pods[2].cpu.time`). */
export class InvalidStatsSummary extends Error {
  override readonly name = 'InvalidStatsSummary';
  constructor(readonly source: string, readonly field: string, problem: string) {
    super(`stats summary of ${source}: ${field} ${problem}`);
  }
}

function usage(u: UsageStats): Required<Usage> {
  const cumulative = u.usageCoreNanoSeconds;
  return {
    cpu: { time: u.time, usageNanoCores: u.usageNanoCores, ...definedOnly({ usageCoreNanoSeconds: cumulative }) },
    memory: { time: u.time, workingSetBytes: u.workingSetBytes },
  };
}

/**
 * Cumulative CPU (core-nanoseconds) since `startTime`: as given, or for a provider that gives
 * only a rate, what steady usage at that rate has spent.
 */
export function cumulativeCpu(u: UsageStats, startTime: string): number {
  if (u.usageCoreNanoSeconds !== undefined) return u.usageCoreNanoSeconds;
  const seconds = Math.max(0, (Date.parse(u.time) - Date.parse(startTime)) / 1000);
  return Math.round(u.usageNanoCores * seconds);
}

function withCumulative(u: UsageStats, startTime: string): UsageStats {
  return { ...u, usageCoreNanoSeconds: cumulativeCpu(u, startTime) };
}

/** The provider's summary as the kubelet writes it, for node `nodeName`. */
export function toKubeletSummary(summary: StatsSummary, nodeName: string): KubeletSummary {
  const { node } = summary;
  return {
    node: { nodeName, startTime: node.startTime, ...usage(withCumulative(node.usage, node.startTime)) },
    pods: summary.pods.map((pod) => ({
      podRef: pod.podRef,
      startTime: pod.startTime,
      ...usage(withCumulative(pod.usage, pod.startTime)),
      containers: pod.containers.map((c) => ({ name: c.name, startTime: c.startTime, ...usage(withCumulative(c.usage, c.startTime)) })),
    })),
  };
}

type Json = Record<string, unknown>;

class Reader {
  constructor(private readonly source: string) {}

  object(value: unknown, field: string): Json {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidStatsSummary(this.source, field, 'is not an object');
    return value as Json;
  }

  array(value: unknown, field: string): unknown[] {
    if (value === undefined) return [];
    if (!Array.isArray(value)) throw new InvalidStatsSummary(this.source, field, 'is not a list');
    return value;
  }

  string(value: unknown, field: string): string {
    if (typeof value !== 'string' || value === '') throw new InvalidStatsSummary(this.source, field, 'is not a non-empty string');
    return value;
  }

  time(value: unknown, field: string): string {
    const text = this.string(value, field);
    if (Number.isNaN(Date.parse(text))) throw new InvalidStatsSummary(this.source, field, `is not an RFC 3339 time: ${JSON.stringify(text)}`);
    return text;
  }

  number(value: unknown, field: string): number | undefined {
    if (value === undefined) return undefined;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw new InvalidStatsSummary(this.source, field, `is not a non-negative number: ${JSON.stringify(value)}`);
    return value;
  }

  /** cpu and memory as one UsageStats; undefined while either is not measured yet (the kubelet omits them then). */
  usage(item: Json, field: string): UsageStats | undefined {
    if (item['cpu'] === undefined || item['memory'] === undefined) return undefined;
    const cpu = this.object(item['cpu'], `${field}.cpu`);
    const memory = this.object(item['memory'], `${field}.memory`);
    const nanoCores = this.number(cpu['usageNanoCores'], `${field}.cpu.usageNanoCores`);
    const cumulative = this.number(cpu['usageCoreNanoSeconds'], `${field}.cpu.usageCoreNanoSeconds`);
    const workingSet = this.number(memory['workingSetBytes'], `${field}.memory.workingSetBytes`);
    if (nanoCores === undefined || workingSet === undefined) return undefined;
    const time = this.time(cpu['time'], `${field}.cpu.time`);
    return { time, usageNanoCores: nanoCores, workingSetBytes: workingSet, ...definedOnly({ usageCoreNanoSeconds: cumulative }) };
  }
}

/**
 * The pods of a kubelet's summary (`body`, parsed JSON), each with its containers; a pod or
 * container whose cpu or memory is not measured yet is left out, as metrics-server leaves it out.
 * Throws InvalidStatsSummary naming `source` and the field for anything not in the format.
 */
export function podStatsOfKubeletSummary(body: unknown, source: string): PodStats[] {
  const read = new Reader(source);
  const summary = read.object(body, 'the body');
  return read.array(summary['pods'], 'pods').flatMap((raw, i): PodStats[] => {
    const field = `pods[${i}]`;
    const pod = read.object(raw, field);
    const ref = read.object(pod['podRef'], `${field}.podRef`);
    const podUsage = read.usage(pod, field);
    if (podUsage === undefined) return [];
    const containers = read.array(pod['containers'], `${field}.containers`).flatMap((rawContainer, j): ContainerStats[] => {
      const cField = `${field}.containers[${j}]`;
      const container = read.object(rawContainer, cField);
      const containerUsage = read.usage(container, cField);
      if (containerUsage === undefined) return [];
      return [{ name: read.string(container['name'], `${cField}.name`), startTime: read.time(container['startTime'], `${cField}.startTime`), usage: containerUsage }];
    });
    return [{
      podRef: { namespace: read.string(ref['namespace'], `${field}.podRef.namespace`), name: read.string(ref['name'], `${field}.podRef.name`), uid: read.string(ref['uid'], `${field}.podRef.uid`) },
      startTime: read.time(pod['startTime'], `${field}.startTime`),
      usage: podUsage,
      containers,
    }];
  });
}
