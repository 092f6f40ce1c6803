/**
 * How the Service reflector compares a remote copy with what it wants: by the digest of the
 * fields Tether sets (reflectedService.ts, reflectedEndpointSlice.ts), or by the content mark
 * (contentMark.ts) when an admission webhook added to the copy.
 */
import type { EndpointSlice, Service } from '../../../adapters/kubernetes/model.js';
import { carriesContent } from '../contentMark.js';
import { endpointSliceDigest, serviceNameOf } from './reflectedEndpointSlice.js';
import { serviceDigest } from './reflectedService.js';
import type { DesiredObject, ReflectedKind } from './servicePlan.js';

export type Reflected = Service | EndpointSlice;

export function digestOf(kind: ReflectedKind, object: Reflected): string {
  return kind === 'Service' ? serviceDigest(object as Service) : endpointSliceDigest(object as EndpointSlice);
}

/** `object` is the copy of `desired`'s kind and name (the reflector pairs them by object key). */
export function carries(object: Reflected, desired: DesiredObject): boolean {
  return desired.kind === 'Service'
    ? carriesContent(object as Service, desired.object, serviceDigest)
    : carriesContent(object as EndpointSlice, desired.object, endpointSliceDigest);
}

/** The name of the host Service a copy belongs to (an EndpointSlice names it in a label). */
export const serviceOf = (kind: ReflectedKind, name: string, object: Reflected): string => (kind === 'Service' ? name : serviceNameOf(object as EndpointSlice) ?? name);
