/**
 * The numbers the element, the contract and the service agree on, written once: the element plans its uploads by
 * them, the contract's schemas and error descriptions state them, the service enforces them.
 */

/** Sizes in binary units, as S3 counts them: the spec's "5 GB" is 5 GiB. */
export const MiB = 1024 ** 2;
export const GIB = 1024 ** 3;
/** A chunk, and a single-link upload, must be smaller than this. */
export const MAX_PART_BYTES = 5 * GIB;
/** Decision ("maximum number of chunks: not shown"): S3's limit, which the element also plans for. */
export const MAX_CHUNKS = 10_000;
export const HOUR_MS = 60 * 60 * 1000;
/** Multipart sessions and signed links live this long (spec: timed rules 1 and 2). */
export const UPLOAD_TTL_MS = 6 * HOUR_MS;
/** Decision: the largest JSON body the API reads; a bigger one is 413 `payload_too_large`. */
export const MAX_JSON_BYTES = MiB;
/** Decision: webhooks an organization may register in one environment; one more is 409 `too_many_webhooks`. */
export const MAX_WEBHOOKS = 10;
/** Decision: redirects an import (POST /videos/{id}/import) follows, each checked as the first address was. */
export const MAX_REDIRECTS = 5;
/** Spec, Limits: files are kept this long after the plan ends, then deleted permanently. */
export const PLAN_GRACE_MS = 15 * 24 * HOUR_MS;
/**
 * Decision (#10): a `from` at most this much before a publish's first media, and inside no publish, is that publish's
 * start. The clipper sends `from` half a frame early so the cut begins on the frame shown; at a publish's first frame
 * that is a moment before the publish began, which is what a person choosing "from the start" means.
 */
export const LEAD_IN_MS = 1000;
