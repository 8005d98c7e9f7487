import { createHash } from 'node:crypto';
import type { Environment } from '../../../src/api/types.js';
import type { Clock } from '../clock.js';
import type { Db } from '../db.js';
import { HttpError, notFound } from '../http/errors.js';
import { newId, newSecret } from '../ids.js';

/**
 * What a token may do (decision; spec, Authentication 5: "scopes: not shown"), as real services give browsers
 * credentials that can only upload:
 *   key     a key from the command line (the dashboard): everything.
 *   upload  minted by POST /tokens for a browser: #1–#8, on the videos of its end user only.
 *   clip    minted for one live stream: #9, #10 and #11 of that stream, and #8 of the videos converted from it.
 */
export type Scope = 'key' | 'upload' | 'clip';
/** Scopes POST /tokens mints. */
export const MINTED_SCOPES = ['upload', 'clip'] as const;

/** Who is calling: the token's user, organization and environment, and what it may do. */
export interface Caller {
  userId: string;
  organizationId: string;
  environment: Environment;
  scope: Scope;
  /** Of an upload token: the integrator's end user it was minted for (the videos' `user`), if named. */
  endUser: string | null;
  /** Of a clip token: its live stream. */
  liveStreamId: string | null;
}

/** The 403 of a route the token's scope does not reach. */
export const outOfScope = (caller: Caller, what: string) =>
  new HttpError(403, 'insufficient_scope', `A token of scope "${caller.scope}" cannot ${what}; use a key from the dashboard on your server.`);

/**
 * A row the caller may see: its organization's, in its environment. Anything else, missing or not, is the same
 * 404 (never a 403, which would tell that the id exists).
 */
export function owned<T extends { organization_id: string; environment: string }>(caller: Caller, row: T | undefined, what: string): T {
  if (!row || row.organization_id !== caller.organizationId || row.environment !== caller.environment) throw notFound(what);
  return row;
}

/** Decision: lifetimes POST /tokens accepts, in seconds (default one hour). */
export const TOKEN_TTL = { min: 60, max: 24 * 60 * 60, default: 60 * 60 } as const;

/** The token of an Authorization header: `Bearer <token>`, or the bare token. */
export const bareToken = (header: string | undefined) => header?.replace(/^Bearer\s+/i, '').trim();
const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

export class Accounts {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /** Creates the organization (and its first user) when missing, and returns a new token. Stored hashed. */
  createToken(orgName: string, environment: Environment = 'production'): string {
    const now = this.clock.now();
    return this.db.transaction(() => {
      let org = this.db.prepare('SELECT id FROM organizations WHERE name = ?').get(orgName) as { id: string } | undefined;
      if (!org) {
        org = { id: newId() };
        this.db.prepare('INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)').run(org.id, orgName, now);
        this.db.prepare('INSERT INTO users (id, organization_id, created_at) VALUES (?, ?, ?)').run(newId(), org.id, now);
      }
      const user = this.db.prepare('SELECT id FROM users WHERE organization_id = ? ORDER BY created_at LIMIT 1').get(
        org.id,
      ) as { id: string };
      const token = newSecret('vsk_', 32);
      this.db
        .prepare('INSERT INTO tokens (hash, user_id, organization_id, environment, created_at) VALUES (?, ?, ?, ?, ?)')
        .run(hashToken(token), user.id, org.id, environment, now);
      return token;
    })();
  }

  /** Returns whether a live token was revoked. */
  revokeToken(token: string): boolean {
    const r = this.db
      .prepare('UPDATE tokens SET revoked_at = ? WHERE hash = ? AND revoked_at IS NULL')
      .run(this.clock.now(), hashToken(token));
    return r.changes > 0;
  }

  /** Makes a token stop working now, as if its lifetime had ended (test hooks). */
  expireToken(token: string): boolean {
    const r = this.db.prepare('UPDATE tokens SET expires_at = ? WHERE hash = ?').run(this.clock.now(), hashToken(token));
    return r.changes > 0;
  }

  /**
   * Decision (spec: "Exact format of the Authorization header value: not shown"): `Bearer <token>` as
   * RFC 6750 says, and the bare token too, as dashboards that hand out "API keys" are often used.
   */
  authenticate(header: string | undefined): Caller {
    const token = bareToken(header);
    if (!token) throw new HttpError(401, 'unauthorized', 'The Authorization header is missing: send "Bearer <token>".');
    const row = this.db
      .prepare('SELECT user_id, organization_id, environment, expires_at, revoked_at, parent_hash, scope, end_user, live_stream_id FROM tokens WHERE hash = ?')
      .get(hashToken(token)) as
      | {
          user_id: string;
          organization_id: string;
          environment: Environment;
          expires_at: number | null;
          revoked_at: number | null;
          parent_hash: string | null;
          scope: Scope | null;
          end_user: string | null;
          live_stream_id: string | null;
        }
      | undefined;
    if (!row) throw new HttpError(401, 'unauthorized', 'The access token is not known to this service.');
    if (row.revoked_at !== null) throw new HttpError(401, 'unauthorized', 'The access token was revoked.');
    // Revoking a key revokes every token made from it.
    const parent = row.parent_hash === null ? undefined : (this.db.prepare('SELECT revoked_at FROM tokens WHERE hash = ?').get(row.parent_hash) as { revoked_at: number | null } | undefined);
    if (parent && parent.revoked_at !== null) throw new HttpError(401, 'unauthorized', 'The access token was revoked: the key that made it was revoked.');
    if (row.expires_at !== null && row.expires_at <= this.clock.now()) {
      throw new HttpError(401, 'token_expired', 'The access token has expired.');
    }
    return {
      userId: row.user_id,
      organizationId: row.organization_id,
      environment: row.environment,
      // Tokens minted before scopes existed were for browsers: upload.
      scope: row.parent_hash === null ? 'key' : (row.scope ?? 'upload'),
      endUser: row.end_user,
      liveStreamId: row.live_stream_id,
    };
  }

  /**
   * Decision ("Token lifetime, scopes and refresh: not shown"): an integrator's backend trades its key for a
   * short-lived, scoped token to hand to a browser, so the key never leaves the server. Same organization,
   * user and environment; revoking the key revokes it too. `liveStreamId` (clip) must be checked by the caller.
   */
  createScopedToken(
    parent: Caller,
    parentToken: string,
    grant: { ttlSeconds: number; scope: (typeof MINTED_SCOPES)[number]; endUser: string | null; liveStreamId: string | null },
  ): { token: string; expiresAt: number; scope: string } {
    if (parent.scope !== 'key') throw new HttpError(403, 'forbidden', 'A short-lived token cannot create tokens; use the long-lived one.');
    const token = newSecret('vst_', 32);
    const now = this.clock.now();
    const expiresAt = now + grant.ttlSeconds * 1000;
    this.db
      .prepare(
        `INSERT INTO tokens (hash, user_id, organization_id, environment, created_at, expires_at, parent_hash, scope, end_user, live_stream_id)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(hashToken(token), parent.userId, parent.organizationId, parent.environment, now, expiresAt, hashToken(parentToken), grant.scope, grant.endUser, grant.liveStreamId);
    return { token, expiresAt, scope: grant.scope };
  }
}
