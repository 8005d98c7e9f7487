import type { Caller } from './accounts.js';
import { ServiceError } from './errors.js';

/**
 * Decision (issue 28): what one end user and one organization may hold open at once, each kind counted on its own:
 * videos waiting for their file (created in the last day, so abandoned ones stop counting), signed links not expired,
 * and multipart sessions open and not expired. Past a cap, 429 `limit_reached` naming it, with `Retry-After`: when the
 * first one counted stops counting by itself. Finishing an upload (or aborting a session) frees a place at once.
 */
export interface OpenUploadCaps {
  /** Of the end user an upload token names; upload tokens minted without `user` share one count. */
  perUser: number;
  /** Of the organization, whoever asks, keys included. */
  perOrganization: number;
}

/**
 * 100 per end user: a person uploads a handful of files at once; a page queueing a whole folder still fits, and a
 * script with a stolen browser token stops there. 10,000 per organization: a hundred such users at their cap, and
 * rows that stay cheap to count.
 */
export const DEFAULT_OPEN_UPLOAD_CAPS: OpenUploadCaps = { perUser: 100, perOrganization: 10_000 };

/** Of one kind: how many are open, and when the first of them stops counting (service-clock ms). */
export interface Open {
  n: number;
  freesAt: number | null;
}

/**
 * Refuses one more when the caller's end user (an upload token's) or organization holds the most allowed.
 * `open(user)`: what is open of the end user `user` (null: made without one), or of the whole organization (undefined).
 * The count and the insert it allows must be one transaction holding the organization's lock
 * (Accounts.lockOrganization), so that requests at once, to any process, never pass a cap together.
 */
export async function assertUnderCaps(
  caps: OpenUploadCaps,
  caller: Caller,
  now: number,
  what: string,
  remedy: string,
  open: (user: string | null | undefined) => Promise<Open>,
): Promise<void> {
  const refuse = (who: string, { n, freesAt }: Open, flag: string) =>
    capReached('limit_reached', `This ${who}`, n, what, flag, remedy, Math.ceil(((freesAt ?? now) - now) / 1000));
  if (caller.scope === 'upload') {
    const mine = await open(caller.endUser);
    if (mine.n >= caps.perUser) throw refuse('end user', mine, '--max-open-uploads-per-user');
  }
  const all = await open(undefined);
  if (all.n >= caps.perOrganization) throw refuse('organization', all, '--max-open-uploads-per-organization');
}

/** The refusal of a cap (open uploads, queued work): who holds how many of what, the flag, and when to try again. */
export function capReached(
  code: 'limit_reached' | 'queue_full',
  who: string,
  n: number,
  what: string,
  flag: string,
  remedy: string,
  retryAfterSeconds: number,
): ServiceError {
  return new ServiceError(code, `${who} has ${n} ${what}, the most allowed (${flag}); ${remedy}`, undefined, {
    'retry-after': String(Math.max(1, retryAfterSeconds)),
  });
}
