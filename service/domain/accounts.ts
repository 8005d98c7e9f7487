import { createHash } from 'node:crypto';
import { MINTED_SCOPES, TOKEN_TTL } from '../../src/api/contract.js';
import type { Environment, Token, TokenRequest } from '../../src/api/types.js';
import type { Clock } from '../clock.js';
import { engineOf, type Db, type Executor } from '../db/index.js';
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

  /**
   * Creates the organization (and its first user) when missing, and returns a new token. Stored hashed. Two
   * commands for one new name at once: the name is unique, so the second's insert does nothing and it reads the
   * organization the first made.
   */
  async createToken(orgName: string, environment: Environment = 'production'): Promise<string> {
    const now = this.clock.now();
    return this.db.transaction().execute(async (trx) => {
      const id = newId();
      const made = await trx
        .insertInto('organizations')
        .values({ id, name: orgName, created_at: now })
        .onConflict((c) => c.column('name').doNothing())
        .executeTakeFirst();
      const org = await trx
        .selectFrom('organizations')
        .select('id')
        .where('name', '=', orgName)
        .executeTakeFirstOrThrow();
      if ((made.numInsertedOrUpdatedRows ?? 0n) > 0n)
        await trx.insertInto('users').values({ id: newId(), organization_id: org.id, created_at: now }).execute();
      const user = await trx
        .selectFrom('users')
        .select('id')
        .where('organization_id', '=', org.id)
        .orderBy('created_at')
        .limit(1)
        .executeTakeFirstOrThrow();
      const token = newSecret('vsk_', 32);
      await trx
        .insertInto('tokens')
        .values({ hash: hashToken(token), user_id: user.id, organization_id: org.id, environment, created_at: now })
        .execute();
      return token;
    });
  }

  /** Returns whether a live token was revoked. */
  async revokeToken(token: string): Promise<boolean> {
    const r = await this.db
      .updateTable('tokens')
      .set({ revoked_at: this.clock.now() })
      .where('hash', '=', hashToken(token))
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return r.numUpdatedRows > 0n;
  }

  /** Makes a token stop working now, as if its lifetime had ended (test hooks). */
  async expireToken(token: string): Promise<boolean> {
    const r = await this.db
      .updateTable('tokens')
      .set({ expires_at: this.clock.now() })
      .where('hash', '=', hashToken(token))
      .executeTakeFirst();
    return r.numUpdatedRows > 0n;
  }

  /**
   * Decision (spec: "Exact format of the Authorization header value: not shown"): `Bearer <token>` as
   * RFC 6750 says, and the bare token too, as dashboards that hand out "API keys" are often used.
   */
  async authenticate(header: string | undefined): Promise<Caller> {
    const token = bareToken(header);
    if (!token) throw new ServiceError('unauthorized', 'The Authorization header is missing: send "Bearer <token>".');
    const tokenHash = hashToken(token);
    const row = await this.db
      .selectFrom('tokens as t')
      .innerJoin('organizations as o', 'o.id', 't.organization_id')
      .leftJoin('tokens as p', 'p.hash', 't.parent_hash')
      .select([
        't.user_id',
        't.organization_id',
        't.environment',
        't.expires_at',
        't.revoked_at',
        't.parent_hash',
        't.scope',
        't.end_user',
        't.live_stream_id',
        'o.purged_at',
        'p.revoked_at as parent_revoked_at',
      ])
      .where('t.hash', '=', tokenHash)
      .executeTakeFirst();
    if (!row) throw new ServiceError('unauthorized', 'The access token is not known to this service.');
    if (row.revoked_at !== null) throw new ServiceError('unauthorized', 'The access token was revoked.');
    // Revoking a key revokes every token made from it.
    if (row.parent_revoked_at !== null)
      throw new ServiceError('unauthorized', 'The access token was revoked: the key that made it was revoked.');
    if (row.purged_at !== null) throw purged();
    if (row.expires_at !== null && row.expires_at <= this.clock.now()) {
      throw new ServiceError('token_expired', 'The access token has expired.');
    }
    return {
      userId: row.user_id,
      organizationId: row.organization_id,
      environment: row.environment as Environment,
      // Tokens minted before scopes existed were for browsers: upload.
      scope: row.parent_hash === null ? 'key' : ((row.scope as Scope | null) ?? 'upload'),
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
  async assertSource(tokenHash: string | null): Promise<void> {
    if (tokenHash === null) return;
    const row = await this.db
      .selectFrom('tokens as t')
      .leftJoin('tokens as p', 'p.hash', 't.parent_hash')
      .innerJoin('organizations as o', 'o.id', 't.organization_id')
      .select(['t.revoked_at', 'p.revoked_at as parent_revoked_at', 'o.purged_at'])
      .where('t.hash', '=', tokenHash)
      .executeTakeFirst();
    if (row?.purged_at != null) throw purged();
    if (!row || row.revoked_at !== null || row.parent_revoked_at !== null)
      throw new ServiceError(
        'capability_revoked',
        'The key or token that asked for this upload link or session was revoked; it no longer takes bytes. Ask for a new one with a live token.',
      );
  }

  /**
   * Makes `trx` the only transaction counting against the organization's caps until it ends (a count and the
   * insert it allows, in domain/open-uploads.ts, videos.ts and exports.ts): on PostgreSQL the organization's row,
   * locked (`SELECT … FOR UPDATE`; another process's transaction for it waits); on SQLite a write first, which
   * holds the file's one write lock from the transaction's start.
   */
  async lockOrganization(trx: Executor, organizationId: string): Promise<void> {
    if (engineOf(trx) === 'postgres') {
      await trx.selectFrom('organizations').select('id').where('id', '=', organizationId).forUpdate().execute();
      return;
    }
    await trx
      .updateTable('organizations')
      .set((eb) => ({ name: eb.ref('name') }))
      .where('id', '=', organizationId)
      .execute();
  }

  /**
   * POST /tokens. Decision ("Token lifetime, scopes and refresh: not shown"): an integrator's backend trades its
   * key for a short-lived, scoped token to hand to a browser, so the key never leaves the server. Same
   * organization, user and environment; revoking the key revokes it too. A clip token's stream must be one the
   * key sees (`findStream` answers 404 otherwise, as for any other id).
   */
  async mintToken(
    parent: Caller,
    parentHeader: string | undefined,
    input: TokenRequest,
    findStream: (caller: Caller, id: string) => Promise<{ id: string }>,
  ): Promise<Token> {
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
    const stream = scope === 'clip' ? await findStream(parent, live_stream_id!) : undefined;
    if (parent.scope !== 'key')
      throw new ServiceError('forbidden', 'A short-lived token cannot create tokens; use the long-lived one.');
    const token = newSecret('vst_', 32);
    const now = this.clock.now();
    const expiresAt = now + ttl_seconds * 1000;
    await this.db
      .insertInto('tokens')
      .values({
        hash: hashToken(token),
        user_id: parent.userId,
        organization_id: parent.organizationId,
        environment: parent.environment,
        created_at: now,
        expires_at: expiresAt,
        parent_hash: hashToken(bareToken(parentHeader)!),
        scope,
        end_user: user ?? null,
        live_stream_id: stream?.id ?? null,
      })
      .execute();
    return { token, expiresAt, scope };
  }

  /** The account owner's side of the plan (a dashboard's job, the command line's `plan`): its end and quotas. */
  async setPlan(
    orgName: string,
    change: { endAt?: number | null; quotaMinutes?: number | null; quotaBytes?: number | null },
  ): Promise<Plan | undefined> {
    const org = await this.db.selectFrom('organizations').select('id').where('name', '=', orgName).executeTakeFirst();
    if (!org) return undefined;
    const set = {
      ...(change.endAt === undefined ? {} : { plan_end_at: change.endAt, purged_at: null }),
      ...(change.quotaMinutes === undefined ? {} : { quota_minutes: change.quotaMinutes }),
      ...(change.quotaBytes === undefined ? {} : { quota_bytes: change.quotaBytes }),
    };
    if (Object.keys(set).length > 0)
      await this.db.updateTable('organizations').set(set).where('id', '=', org.id).execute();
    return this.plan(org.id);
  }

  plan(organizationId: string): Promise<Plan> {
    return this.db
      .selectFrom('organizations')
      .select(['id', 'plan_end_at', 'quota_minutes', 'quota_bytes', 'purged_at'])
      .where('id', '=', organizationId)
      .executeTakeFirstOrThrow();
  }

  /** Organizations whose plan ended at or before `at` and whose files are not deleted yet. */
  async plansEndedBy(at: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('organizations')
      .select('id')
      .where('plan_end_at', 'is not', null)
      .where('purged_at', 'is', null)
      .where('plan_end_at', '<=', at)
      .execute();
    return rows.map((r) => r.id);
  }

  /**
   * By the sweeper: minted tokens two days after they expired or were revoked. Two days, because what a token asked
   * for outlives it: a multipart session can be completed up to 30 h after it began (6 h, then a day). Keys are never
   * pruned: a revoked key's row is what makes the tokens minted from it fail.
   */
  async prune(): Promise<void> {
    const before = this.clock.now() - PRUNE_TOKENS_AFTER_MS;
    await this.db
      .deleteFrom('tokens')
      .where('parent_hash', 'is not', null)
      .where((eb) => eb.or([eb('expires_at', '<', before), eb('revoked_at', '<', before)]))
      .execute();
  }

  async markPurged(organizationId: string, db: Executor = this.db): Promise<void> {
    await db
      .updateTable('organizations')
      .set({ purged_at: this.clock.now() })
      .where('id', '=', organizationId)
      .execute();
  }
}
