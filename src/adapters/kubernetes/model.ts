/**
 * The Kubernetes object types Tether's actors speak. Actors import them from here, never from
 * @kubernetes/client-node, so the client stays behind the adapter boundary.
 */
export type {
  V1Pod as Pod,
  V1PodSpec as PodSpec,
  V1PodStatus as PodStatus,
  V1PodCondition as PodCondition,
  V1ContainerStatus as ContainerStatus,
  V1Node as Node,
  V1NodeStatus as NodeStatus,
  V1NodeCondition as NodeCondition,
  V1NodeSystemInfo as NodeSystemInfo,
  V1NodeAddress as NodeAddress,
  V1Taint as Taint,
  V1Lease as Lease,
  V1ObjectMeta as ObjectMeta,
  V1ObjectReference as ObjectReference,
  V1ConfigMap as ConfigMap,
  V1Secret as Secret,
  V1Service as Service,
  V1ServicePort as ServicePort,
  V1EndpointSlice as EndpointSlice,
  V1Endpoint as Endpoint,
} from '@kubernetes/client-node';

/** The kubelet API's port when none is configured (the kubelet's own `--port` default). */
export const DEFAULT_KUBELET_PORT = 10250;
