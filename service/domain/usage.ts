import { rm } from 'node:fs/promises';
import type { Db } from '../db/index.js';
import { iso, type Clock } from '../clock.js';
import type { UsageReport } from '../../src/api/types.js';
import { PLAN_GRACE_MS } from '../../src/api/limits.js';
import type { Files } from '../storage/files.js';
import type { Accounts, Caller } from './accounts.js';
import { ServiceError } from './errors.js';
import type { Recordings } from './recordings.js';
import type { Videos } from './videos.js';

/** What the organization's files are, for a purge: each module deletes its own rows (and files). */
export interface Holdings {
  /** Seconds of conversions under way (domain/exports.ts). */
  pendingSeconds(organizationId: string): Promise<number>;
  /** Deletes the uploads and conversions of these videos (domain/uploads.ts, domain/exports.ts). */
  purgeVideos(videoIds: string[]): Promise<void>;
  /** Bytes of the chunks in open multipart sessions (domain/uploads.ts). */
  chunkBytes(organizationId: string): Promise<number>;
}

export interface UsageOptions {
  /** For the one transaction that ends a purge (the rows of two modules go together). */
  db: Db;
  clock: Clock;
  files: Files;
  accounts: Accounts;
  videos: Videos;
  recordings: Recordings;
  holdings: Holdings;
  /** For organizations without a storage quota of their own (`plan --quota-bytes`); null: unlimited. */
  defaultQuotaBytes?: number | null;
}

/**
 * Hosting minutes and the plan. Permanent videos count (their processed duration, and conversions
 * under way with the duration asked for); temporary recordings do not. The quota (null: unlimited)
 * refuses uploads and conversions past it. Plan end and quota are set by the account's owner with
 * the service's command line (`plan`), as a dashboard would; the API only reads them.
 *
 * Stored bytes (decision: what the organization sent, cheap to sum and honest to show): the sources of its
 * videos (uploads, imports, conversions) and the chunks of its open multipart sessions. Renditions made from
 * a source are the service's, and temporary recordings are not counted (as for hosting minutes: they go after
 * 3 days; the disk reserve bounds them). The storage quota (--storage-quota-mb, or `plan --quota-bytes`)
 * refuses new bytes past it with 403 `storage_quota_exceeded`: the organization's limit, not the disk's (507).
 */
export class Usage {
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly files: Files;
  private readonly accounts: Accounts;
  private readonly videos: Videos;
  private readonly recordings: Recordings;
  private readonly holdings: Holdings;
  private readonly defaultQuotaBytes: number | null;

  constructor(options: UsageOptions) {
    ({
      db: this.db,
      clock: this.clock,
      files: this.files,
      accounts: this.accounts,
      videos: this.videos,
      recordings: this.recordings,
      holdings: this.holdings,
      defaultQuotaBytes: this.defaultQuotaBytes = null,
    } = options);
  }

  async minutesUsed(organizationId: string): Promise<number> {
    return (
      ((await this.videos.readySeconds(organizationId)) + (await this.holdings.pendingSeconds(organizationId))) / 60
    );
  }

  private plan(organizationId: string) {
    return this.accounts.plan(organizationId);
  }

  async report(caller: Caller): Promise<UsageReport> {
    const plan = await this.plan(caller.organizationId);
    return {
      hosting_minutes: {
        used: Math.round((await this.minutesUsed(caller.organizationId)) * 100) / 100,
        quota: plan.quota_minutes,
      },
      plan: {
        end_time: plan.plan_end_at === null ? null : iso(plan.plan_end_at),
        files_deleted_time: plan.plan_end_at === null ? null : iso(plan.plan_end_at + PLAN_GRACE_MS),
      },
    };
  }

  async storedBytes(organizationId: string): Promise<number> {
    return (await this.videos.storedBytes(organizationId)) + (await this.holdings.chunkBytes(organizationId));
  }

  /** The organization's storage quota in bytes; null: unlimited. */
  async quotaBytes(organizationId: string): Promise<number | null> {
    const own = (await this.plan(organizationId)).quota_bytes;
    return own === null ? this.defaultQuotaBytes : own < 0 ? null : own;
  }

  /**
   * Refuses new bytes past the organization's storage quota: once it is used up, or when `incoming` more would
   * pass it. A body of unknown length is checked again as it arrives (`incoming`: its bytes so far).
   */
  async assertStorage(organizationId: string): Promise<void> {
    const quota = await this.quotaBytes(organizationId);
    storageRule(quota, await this.storedBytes(organizationId), 0);
  }

  /**
   * The quota check of one body (a PUT, an import): what the organization stores, and its quota, are read once,
   * as the body starts; the check is then asked with the body's size, declared first and counted as its bytes arrive.
   */
  async storageCheck(organizationId: string): Promise<(size: number) => void> {
    const quota = await this.quotaBytes(organizationId);
    const stored = await this.storedBytes(organizationId);
    return (size) => storageRule(quota, stored, size);
  }

  /**
   * Refuses what would take the organization past its quotas: hosting minutes, and stored bytes once they are used
   * up. `minutes` is 0 for an upload (its length is not known yet).
   */
  async assertRoom(organizationId: string, minutes: number): Promise<void> {
    await this.assertStorage(organizationId);
    const { quota_minutes: quota } = await this.plan(organizationId);
    if (quota === null) return;
    const used = await this.minutesUsed(organizationId);
    if (used + minutes > quota || used >= quota) {
      throw new ServiceError(
        'quota_exceeded',
        `The organization's hosting-minute quota is used up: ${used.toFixed(2)} of ${quota} minutes are used${minutes > 0 ? ` and this needs ${minutes.toFixed(2)} more` : ''}.`,
      );
    }
  }

  /** Run by the sweeper: PLAN_GRACE_MS after a plan ended, every file of the organization is deleted, permanently. */
  async sweep(): Promise<void> {
    for (const id of await this.accounts.plansEndedBy(this.clock.now() - PLAN_GRACE_MS)) await this.purge(id);
  }

  /** Files first, rows after: until every file is gone the organization is not marked purged, and the next sweep goes on. */
  private async purge(organizationId: string): Promise<void> {
    for (const id of await this.recordings.ids(organizationId)) await this.recordings.remove(id);
    const videos = await this.videos.ids(organizationId);
    for (const id of videos) await rm(this.files.videoDir(id), { recursive: true, force: true });
    await this.holdings.purgeVideos(videos);
    // One transaction: no request sees the videos gone and the organization not yet purged (404, not 403).
    await this.db.transaction().execute(async (trx) => {
      await this.videos.deleteAll(organizationId, trx);
      await this.accounts.markPurged(organizationId, trx);
    });
  }
}

/**
 * Refuses new bytes past the organization's storage quota (null: unlimited): once it is used up, or when
 * `incoming` more would pass it. A body of unknown length is checked again as it arrives (`incoming`: its bytes so far).
 */
function storageRule(quota: number | null, stored: number, incoming: number): void {
  if (quota === null || (stored < quota && stored + incoming <= quota)) return;
  throw new ServiceError(
    'storage_quota_exceeded',
    `The organization's storage quota is used up: it stores ${stored} of its ${quota} bytes${incoming > 0 ? ` and this body brings ${incoming} more` : ''}. ` +
      "This is the organization's quota, set by its account owner (plan --quota-bytes), not the service's disk.",
  );
}
