import { createHash } from 'node:crypto';
import { MINTED_SCOPES, TOKEN_TTL } from '../../src/api/contract.js';
import type { Environment, Token, TokenRequest } from '../../src/api/types.js';
import type { Clock } from '../clock.js';
import type { Db } from '../db.js';
import { newId, newSecret } from '../ids.js';
import { badField, notFound, ServiceError } from './errors.js';

/**
 * What a token may do (decision; spec, Authentication 5: "scopes: not shown"), as real services give browsers
 * credentials that can only upload:
 *   key     a key from the command line (the dashboard): everything.
 *   upload  minted by POST /tokens for a browser: #1–#8, on the videos of its end user only.
 *   clip    minted for one live stream: #9, #10 and #11 of that stream, and #8 of the videos converted from it.
 */
export type Scope = 'key' | (typeof MINTED_SCOPES)[number];

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
  /** The SHA-256 of the token: the links, sessions and videos it makes name it (a revoked token's end with it), and
   * what it asks for is counted against it (conversions under way, domain/exports.ts). */
  tokenHash: string;
}

/** The 403 of a route the token's scope does not reach. */
export const outOfScope = (caller: Caller, what: string) =>
  new ServiceError(
    'insufficient_scope',
    `A token of scope "${caller.scope}" cannot ${what}; use a key from the dashboard on your server.`,
  );

/**
 * A row the caller may see: its organization's, in its environment. Anything else, missing or not, is the same
 * 404 (never a 403, which would tell that the id exists).
 */
export function owned<T extends { organization_id: string; environment: string }>(
  caller: Caller,
  row: T | undefined,
  what: string,
): T {
  if (!row || row.organization_id !== caller.organizationId || row.environment !== caller.environment)
    throw notFound(what);
  return row;
}

/**
 * Decision: a purged organization's keys and tokens get 403 `capability_revoked`, not 401: they are known and
 * valid, but what they open is gone; a new token would not help, only a new plan (`plan --ends`) does.
 */
const purged = () =>
  new ServiceError(
    'capability_revoked',
    "The organization's plan ended and its files were deleted (purged); its keys, tokens, links and sessions no longer work until the plan is renewed.",
  );

/** The token of an Authorization header: `Bearer <token>`, or the bare token. */
export const bareToken = (header: string | undefined) => header?.replace(/^Bearer\s+/i, '').trim();
export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

const PRUNE_TOKENS_AFTER_MS = 2 * 24 * 60 * 60 * 1000;

export interface Plan {
  id: string;
  plan_end_at: number | null;
  quota_minutes: number | null;
  /** Stored bytes allowed: null, the service's default (--storage-quota-mb); negative, unlimited. */
  quota_bytes: number | null;
  purged_at: number | null;
}

export interface AccountsOptions {
  db: Db;
  clock: Clock;
}

export class Accounts {
  private readonly db: Db;
  private readonly clock: Clock;

  constructor(options: AccountsOptions) {
    ({ db: this.db, clock: this.clock } = options);
  }

  /** Creates the organization (and its first user) when missing, and returns a new token. Stored hashed. */
  createToken(orgName: string, environment: Environment = 'production'): string {
    const now = this.clock.now();
    return this.db.transaction(() => {
      let org = this.db.prepare('SELECT id FROM organizations WHERE name = ?').get(orgName) as
        { id: string } | undefined;
      if (!org) {
        org = { id: newId() };
        this.db.prepare('INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)').run(org.id, orgName, now);
        this.db
          .prepare('INSERT INTO users (id, organization_id, created_at) VALUES (?, ?, ?)')
          .run(newId(), org.id, now);
      }
      const user = this.db
        .prepare('SELECT id FROM users WHERE organization_id = ? ORDER BY created_at LIMIT 1')
        .get(org.id) as { id: string };
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
    const r = this.db
      .prepare('UPDATE tokens SET expires_at = ? WHERE hash = ?')
      .run(this.clock.now(), hashToken(token));
    return r.changes > 0;
  }

  /**
   * Decision (spec: "Exact format of the Authorization header value: not shown"): `Bearer <token>` as
   * RFC 6750 says, and the bare token too, as dashboards that hand out "API keys" are often used.
   */
  authenticate(header: string | undefined): Caller {
    const token = bareToken(header);
    if (!token) throw new ServiceError('unauthorized', 'The Authorization header is missing: send "Bearer <token>".');
    const tokenHash = hashToken(token);
    const row = this.db
      .prepare(
        `SELECT user_id, organization_id, environment, expires_at, revoked_at, parent_hash, scope, end_user, live_stream_id,
         (SELECT purged_at FROM organizations WHERE id = organization_id) AS purged_at FROM tokens WHERE hash = ?`,
      )
      .get(tokenHash) as
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
          purged_at: number | null;
        }
      | undefined;
    if (!row) throw new ServiceError('unauthorized', 'The access token is not known to this service.');
    if (row.revoked_at !== null) throw new ServiceError('unauthorized', 'The access token was revoked.');
    // Revoking a key revokes every token made from it.
    const parent =
      row.parent_hash === null
        ? undefined
        : (this.db.prepare('SELECT revoked_at FROM tokens WHERE hash = ?').get(row.parent_hash) as
            { revoked_at: number | null } | undefined);
    if (parent && parent.revoked_at !== null)
      throw new ServiceError('unauthorized', 'The access token was revoked: the key that made it was revoked.');
    if (row.purged_at !== null) throw purged();
    if (row.expires_at !== null && row.expires_at <= this.clock.now()) {
      throw new ServiceError('token_expired', 'The access token has expired.');
    }
    return {
      userId: row.user_id,
      organizationId: row.organization_id,
      environment: row.environment,
      // Tokens minted before scopes existed were for browsers: upload.
      scope: row.parent_hash === null ? 'key' : (row.scope ?? 'upload'),
      endUser: row.end_user,
      liveStreamId: row.live_stream_id,
      tokenHash,
    };
  }

  /**
   * A signed link or a multipart session lives only as long as its source (#2–#6): the token that asked for it
   * not revoked, nor the key that made that token, and its organization not purged; else 403 `capability_revoked`.
   * A token row that is gone counts as revoked. `null`: made before sources were recorded.
   */
  assertSource(tokenHash: string | null): void {
    if (tokenHash === null) return;
    const row = this.db
      .prepare(
        `SELECT t.revoked_at, p.revoked_at AS parent_revoked_at, o.purged_at FROM tokens t
         LEFT JOIN tokens p ON p.hash = t.parent_hash JOIN organizations o ON o.id = t.organization_id WHERE t.hash = ?`,
      )
      .get(tokenHash) as
      { revoked_at: number | null; parent_revoked_at: number | null; purged_at: number | null } | undefined;
    if (row?.purged_at != null) throw purged();
    if (!row || row.revoked_at !== null || row.parent_revoked_at !== null)
      throw new ServiceError(
        'capability_revoked',
        'The key or token that asked for this upload link or session was revoked; it no longer takes bytes. Ask for a new one with a live token.',
      );
  }

  /**
   * POST /tokens. Decision ("Token lifetime, scopes and refresh: not shown"): an integrator's backend trades its
   * key for a short-lived, scoped token to hand to a browser, so the key never leaves the server. Same
   * organization, user and environment; revoking the key revokes it too. A clip token's stream must be one the
   * key sees (`findStream` answers 404 otherwise, as for any other id).
   */
  mintToken(
    parent: Caller,
    parentHeader: string | undefined,
    input: TokenRequest,
    findStream: (caller: Caller, id: string) => { id: string },
  ): Token {
    const { ttl_seconds = TOKEN_TTL.default, scope = 'upload', user, live_stream_id } = input;
    if (scope === 'clip' && user !== undefined) throw badField('user', 'user goes with scope "upload" only.');
    if ((scope === 'clip') !== (live_stream_id !== undefined)) {
      throw badField(
        'live_stream_id',
        scope === 'clip'
          ? 'A clip token needs the live_stream_id it is for.'
          : 'live_stream_id goes with scope "clip" only.',
      );
    }
    const stream = scope === 'clip' ? findStream(parent, live_stream_id!) : undefined;
    if (parent.scope !== 'key')
      throw new ServiceError('forbidden', 'A short-lived token cannot create tokens; use the long-lived one.');
    const token = newSecret('vst_', 32);
    const now = this.clock.now();
    const expiresAt = now + ttl_seconds * 1000;
    this.db
      .prepare(
        `INSERT INTO tokens (hash, user_id, organization_id, environment, created_at, expires_at, parent_hash, scope, end_user, live_stream_id)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        hashToken(token),
        parent.userId,
        parent.organizationId,
        parent.environment,
        now,
        expiresAt,
        hashToken(bareToken(parentHeader)!),
        scope,
        user ?? null,
        stream?.id ?? null,
      );
    return { token, expiresAt, scope };
  }

  /** The account owner's side of the plan (a dashboard's job, the command line's `plan`): its end and quotas. */
  setPlan(
    orgName: string,
    change: { endAt?: number | null; quotaMinutes?: number | null; quotaBytes?: number | null },
  ): Plan | undefined {
    const org = this.db.prepare('SELECT id FROM organizations WHERE name = ?').get(orgName) as
      { id: string } | undefined;
    if (!org) return undefined;
    this.db.transaction(() => {
      if (change.endAt !== undefined)
        this.db
          .prepare('UPDATE organizations SET plan_end_at = ?, purged_at = NULL WHERE id = ?')
          .run(change.endAt, org.id);
      if (change.quotaMinutes !== undefined)
        this.db.prepare('UPDATE organizations SET quota_minutes = ? WHERE id = ?').run(change.quotaMinutes, org.id);
      if (change.quotaBytes !== undefined)
        this.db.prepare('UPDATE organizations SET quota_bytes = ? WHERE id = ?').run(change.quotaBytes, org.id);
    })();
    return this.plan(org.id);
  }

  plan(organizationId: string): Plan {
    return this.db
      .prepare('SELECT id, plan_end_at, quota_minutes, quota_bytes, purged_at FROM organizations WHERE id = ?')
      .get(organizationId) as Plan;
  }

  /** Organizations whose plan ended at or before `at` and whose files are not deleted yet. */
  plansEndedBy(at: number): string[] {
    const rows = this.db
      .prepare('SELECT id FROM organizations WHERE plan_end_at IS NOT NULL AND purged_at IS NULL AND plan_end_at <= ?')
      .all(at) as { id: string }[];
    return rows.map((r) => r.id);
  }

  /**
   * By the sweeper: minted tokens two days after they expired or were revoked. Two days, because what a token asked
   * for outlives it: a multipart session can be completed up to 30 h after it began (6 h, then a day). Keys are never
   * pruned: a revoked key's row is what makes the tokens minted from it fail.
   */
  prune(): void {
    const before = this.clock.now() - PRUNE_TOKENS_AFTER_MS;
    this.db
      .prepare('DELETE FROM tokens WHERE parent_hash IS NOT NULL AND (expires_at < ? OR revoked_at < ?)')
      .run(before, before);
  }

  markPurged(organizationId: string): void {
    this.db.prepare('UPDATE organizations SET purged_at = ? WHERE id = ?').run(this.clock.now(), organizationId);
  }
}
