/** Sizes: the spec's "5 GB" limits, taken as binary units like S3's. */
export const GIB = 1024 ** 3;
/** A chunk, and a single-link upload, must be smaller than this. */
export const MAX_PART_BYTES = 5 * GIB;
/** Multipart sessions and signed links live this long (spec: timed rules 1 and 2). */
export const UPLOAD_TTL_MS = 6 * 60 * 60 * 1000;
