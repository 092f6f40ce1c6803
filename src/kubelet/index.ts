/**
 * The kubelet API of a virtual node (what the API server proxies `kubectl logs` to):
 * `kubeletServer.ts` (HTTPS routes), `access.ts` (webhook-mode authentication and authorization),
 * `logQuery.ts` (the containerLogs query), `servingCertificate.ts` (self-signed or provided;
 * files reloaded by `certificateSource.ts`, the self-signed one renewed by `selfSignedRenewal.ts`,
 * both swapped into the server by `servingTls.ts`),
 * `streamRoutes.ts` (the WebSocket upgrades: exec and attach in `streamSession.ts`, port-forward
 * in `portForwardSession.ts` over `adapters/spdy`).
 *
 * Sketch:
 *   const reviewer = createAccessReviewer(loadKubeConfig(host));      // adapters/kubernetes
 *   const kubelet = await startKubeletServer({ nodeName, provider, reviewer, clientCA, port: 10250 });
 *   // the Node advertises internalIP:10250; …; await kubelet.stop();
 */
export type { AccessReviewer, NodeRequestAttributes, UserInfo, AccessDecision } from './access.js';
export { boundedReviewer, decideAccess, requestAttributes, ReviewRateLimited, subresourceOf, type BoundedReviewerOptions } from './access.js';
export type { KubeletServer, KubeletServerOptions } from './kubeletServer.js';
export { startKubeletServer } from './kubeletServer.js';
export { kubeletServerLimits, type KubeletApiSettings } from './kubeletApiSettings.js';
export { REJECTION_REASONS, type RejectionReason, type RejectionSink } from './rejections.js';
export { parseLogOptions, containerLogTarget } from './logQuery.js';
export { selfSignedCertificate, type ServingCertificate } from './servingCertificate.js';
export { loadCertificateFiles, MAX_CERTIFICATE_FILE_BYTES, type CertificateFiles, type TlsMaterial } from './certificateFiles.js';
export { DEFAULT_CERTIFICATE_CHECK_INTERVAL_MS, watchCertificateFiles, type CertificateSource, type WatchedCertificateFiles, type WatchCertificateFilesOptions } from './certificateSource.js';
export { renewingSelfSigned, RENEW_AT_FRACTION, type RenewingCertificate } from './selfSignedRenewal.js';
export type { ServingTlsOptions } from './servingTls.js';
