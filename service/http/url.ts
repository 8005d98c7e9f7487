import { ServiceError, show } from '../domain/errors.js';

/**
 * The request target as a URL whose path is the target's path. `new URL(target, base)` would read a target
 * that starts with `//` as a host (`//%25E0…` then throws, `//x` loses its path): it is appended instead.
 */
export function requestUrl(target: string | undefined): URL {
  try {
    return new URL(`http://service.invalid${target?.startsWith('/') ? target : `/${target ?? ''}`}`);
  } catch {
    throw new ServiceError('invalid_path', `The request target ${show(target)} is not a valid path.`);
  }
}
