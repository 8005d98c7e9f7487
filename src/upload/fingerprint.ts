import { MiB } from '../api/limits.js';
import { md5 } from './verify.js';

/**
 * What tells a re-selected file apart from another with the same name, size and date: those, and a
 * hash of its first and last MiB (MD5, in the worker; crypto.subtle is missing on plain-http pages).
 */
export async function fingerprint(file: Blob, name: string, lastModified: number | undefined): Promise<string> {
  const ends = file.size > 2 * MiB ? new Blob([file.slice(0, MiB), file.slice(file.size - MiB)]) : file;
  return `${name}:${file.size}:${lastModified ?? 0}:${await md5(ends)}`;
}
