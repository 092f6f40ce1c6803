/**
 * The remap (NAT) hook: for clusters whose pod CIDRs overlap, an address translation that a
 * gateway between them performs (Liqo's "reflected IPs" do this with a NAT per peering), given to
 * the provider in code (`KubernetesProviderOptions.addressRemap`; the config file has no way to
 * name one). With a hook, overlapping CIDRs do not refuse the node (addressCheck.ts); the hook is
 * then responsible for the addresses it returns routing where they should.
 *
 * Contract: both methods are pure and fast (called per pod status and per endpoint, on the
 * provider's loops), never throw, and return `undefined` for an address they cannot translate:
 * that address is then left out (never passed through untranslated).
 */
export interface AddressRemap {
  /** A remote pod's IP as host pods report it (status.podIP and podIPs). */
  toHost(remoteIp: string): string | undefined;
  /** A host endpoint's address as a remote EndpointSlice carries it (endpoints that are not offloaded pods). */
  toRemote(hostIp: string): string | undefined;
}
