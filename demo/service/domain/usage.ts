import { rm } from 'node:fs/promises';
import { iso, type Clock } from '../clock.js';
import type { Db } from '../db.js';
import { HttpError } from '../http/errors.js';
import type { Files } from '../storage/files.js';
import type { Caller } from './accounts.js';
import type { Recordings } from './live.js';

/** Spec, Limits: files are kept 15 days after the plan ends, then deleted permanently. */
export const PLAN_GRACE_MS = 15 * 24 * 60 * 60 * 1000;

interface PlanRow {
  id: string;
  plan_end_at: number | null;
  quota_minutes: number | null;
  purged_at: number | null;
}

/** Usage report (decision: GET /usage). */
export interface UsageReport {
  hosting_minutes: { used: number; quota: number | null };
  plan: { end_time: string | null; files_deleted_time: string | null };
}

/**
 * Hosting minutes and the plan. Permanent videos count (their processed duration, and conversions
 * under way with the duration asked for); temporary recordings do not. The quota (null: unlimited)
 * refuses uploads and conversions past it. Plan end and quota are set by the account's owner with
 * the service's command line (`plan`), as a dashboard would; the API only reads them.
 */
export class Usage {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly files: Files,
    private readonly recordings: Recordings,
  ) {}

  minutesUsed(organizationId: string): number {
    const ready = this.db
      .prepare(`SELECT COALESCE(SUM(duration), 0) AS s FROM videos WHERE organization_id = ? AND status = 'ready'`)
      .get(organizationId) as { s: number };
    const pending = this.db
      .prepare(`SELECT COALESCE(SUM(e.duration), 0) AS s FROM exports e JOIN videos v ON v.id = e.video_id
                WHERE v.organization_id = ? AND e.status = 'PROCESSING'`)
      .get(organizationId) as { s: number };
    return (ready.s + pending.s) / 60;
  }

  private plan(organizationId: string): PlanRow {
    return this.db.prepare('SELECT id, plan_end_at, quota_minutes, purged_at FROM organizations WHERE id = ?').get(organizationId) as PlanRow;
  }

  report(caller: Caller): UsageReport {
    const plan = this.plan(caller.organizationId);
    return {
      hosting_minutes: { used: Math.round(this.minutesUsed(caller.organizationId) * 100) / 100, quota: plan.quota_minutes },
      plan: {
        end_time: plan.plan_end_at === null ? null : iso(plan.plan_end_at),
        files_deleted_time: plan.plan_end_at === null ? null : iso(plan.plan_end_at + PLAN_GRACE_MS),
      },
    };
  }

  /** Refuses what would take the organization past its quota. `minutes` is 0 for an upload (its length is not known yet). */
  assertRoom(organizationId: string, minutes: number): void {
    const { quota_minutes: quota } = this.plan(organizationId);
    if (quota === null) return;
    const used = this.minutesUsed(organizationId);
    if (used + minutes > quota || used >= quota) {
      throw new HttpError(403, 'quota_exceeded',
        `The organization's hosting-minute quota is used up: ${used.toFixed(2)} of ${quota} minutes are used${minutes > 0 ? ` and this needs ${minutes.toFixed(2)} more` : ''}.`);
    }
  }

  /** Run by the sweeper: 15 days after a plan ended, every file of the organization is deleted, permanently. */
  async sweep(): Promise<void> {
    const due = this.db
      .prepare('SELECT id FROM organizations WHERE plan_end_at IS NOT NULL AND purged_at IS NULL AND plan_end_at <= ?')
      .all(this.clock.now() - PLAN_GRACE_MS) as { id: string }[];
    for (const { id } of due) await this.purge(id);
  }

  /** Files first, rows after: until every file is gone the organization is not marked purged, and the next sweep goes on. */
  private async purge(organizationId: string): Promise<void> {
    const videos = this.db.prepare('SELECT id FROM videos WHERE organization_id = ?').all(organizationId) as { id: string }[];
    const recordings = this.db.prepare('SELECT id FROM recordings WHERE organization_id = ?').all(organizationId) as { id: string }[];
    const sessions = this.db
      .prepare('SELECT key FROM upload_sessions WHERE video_id IN (SELECT id FROM videos WHERE organization_id = ?)')
      .all(organizationId) as { key: string }[];
    for (const r of recordings) await this.recordings.remove(r.id);
    for (const v of videos) await rm(this.files.videoDir(v.id), { recursive: true, force: true });
    for (const s of sessions) await rm(this.files.chunkDir(s.key), { recursive: true, force: true });
    this.db.transaction(() => {
      const inOrg = '(SELECT id FROM videos WHERE organization_id = ?)';
      this.db.prepare(`DELETE FROM chunks WHERE session_key IN (SELECT key FROM upload_sessions WHERE video_id IN ${inOrg})`).run(organizationId);
      this.db.prepare(`DELETE FROM upload_sessions WHERE video_id IN ${inOrg}`).run(organizationId);
      this.db.prepare(`DELETE FROM upload_links WHERE video_id IN ${inOrg}`).run(organizationId);
      this.db.prepare(`DELETE FROM exports WHERE video_id IN ${inOrg}`).run(organizationId);
      this.db.prepare('DELETE FROM videos WHERE organization_id = ?').run(organizationId);
      this.db.prepare('UPDATE organizations SET purged_at = ? WHERE id = ?').run(this.clock.now(), organizationId);
    })();
  }
}
