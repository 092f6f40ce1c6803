/**
 * Tether's own marks, under its domain prefix.
 *
 * On the host pod: the last creation error and when it happened (lesson from Admiralty: the error
 * is visible on the pod itself, and cleared when creation succeeds; the pod's status is never
 * used to carry it). On the pod handed to the provider: ownership marks, so that at start-up only
 * pods Tether created are ever deleted as orphans.
 */
import { tetherMarkPrefix } from '../../providers/tetherMarks.js';

export const annotationPrefix = tetherMarkPrefix;

export const createErrorAnnotation = `${annotationPrefix}provider-create-error`;
export const createErrorAtAnnotation = `${annotationPrefix}provider-create-error-at`;
/** Set when the pod's actor kept crashing and was given up. */
export const actorFailedAnnotation = `${annotationPrefix}actor-failed`;

export { hostUidMark, virtualNodeMark } from '../../providers/tetherMarks.js';
