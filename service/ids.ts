import { randomBytes } from 'node:crypto';

/** 24 hex digits, like the spec's `_id`s. Ids from clients are checked against the same shape. */
export const newId = (): string => randomBytes(12).toString('hex');
export const isId = (value: string): boolean => /^[0-9a-f]{24}$/.test(value);

/** Opaque random strings with a readable prefix, e.g. `mpu_…` for multipart keys. */
export const newSecret = (prefix: string, bytes = 24): string => prefix + randomBytes(bytes).toString('base64url');
