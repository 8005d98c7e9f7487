import { createHmac, randomBytes } from 'node:crypto';
import { iso, type Clock } from '../clock.js';
import type { Db } from '../db.js';
import { isId, newId, newSecret } from '../ids.js';
import { RetryAt, type Jobs } from '../jobs.js';
import { checkUrl, post, RefusedUrl, type OutboundPolicy } from '../net/outbound.js';
import { WEBHOOK_EVENTS } from '../../src/api/contract.js';
import { MAX_WEBHOOKS } from '../../src/api/limits.js';
import type { CreateWebhookRequest, Webhook } from '../../src/api/types.js';
import { owned, type Caller } from './accounts.js';
import { badField, ServiceError, show } from './errors.js';

export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
export const DELIVER_WEBHOOK = 'deliver-webhook';
// What the job carries, checked where it is enqueued and where it runs (service/jobs.ts, JobPayloads).
declare module '../jobs.js' {
  interface JobPayloads {
    [DELIVER_WEBHOOK]: { deliveryId: string };
  }
}

/**
 * Decision (spec, Events 5: "Signing, retries and delivery guarantees: not shown"): at least once,
 * signed with the Standard Webhooks scheme, retried after these waits (about 27.6 hours in all, past
 * the day a receiver may be down), the same `webhook-id` every time. A 2xx answer is a delivery.
 */
export const RETRY_WAITS_MS = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
];
export const ATTEMPT_TIMEOUT_MS = 15_000;
const PRUNE_DELIVERIES_AFTER_MS = 30 * 24 * 60 * 60 * 1000;

interface WebhookRow {
  id: string;
  organization_id: string;
  environment: string;
  url: string;
  events: string;
  secret: string;
  created_at: number;
}

export interface WebhooksOptions {
  db: Db;
  clock: Clock;
  jobs: Jobs;
  outbound: OutboundPolicy;
}

/** Webhook endpoints (decision: POST/GET/DELETE /webhooks) and the durable delivery of events to them. */
export class Webhooks {
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly jobs: Jobs;
  private readonly outbound: OutboundPolicy;

  constructor(options: WebhooksOptions) {
    ({ db: this.db, clock: this.clock, jobs: this.jobs, outbound: this.outbound } = options);
  }

  /** The receiver's URL must be http(s) and reach no internal address (net/outbound.ts): checked now and at each delivery. */
  async create(caller: Caller, { url, events = [...WEBHOOK_EVENTS] }: CreateWebhookRequest): Promise<Webhook> {
    let parsed: URL;
    try {
      parsed = (await checkUrl(url, this.outbound)).url;
    } catch (err) {
      if (!(err instanceof RefusedUrl)) throw err;
      throw badField('url', `url ${show(url)} is refused: ${err.message}`);
    }
    if (this.list(caller).length >= MAX_WEBHOOKS) {
      throw new ServiceError(
        'too_many_webhooks',
        `An organization has at most ${MAX_WEBHOOKS} webhooks in an environment; delete one first.`,
      );
    }
    const id = newId();
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    this.db
      .prepare(
        'INSERT INTO webhooks (id, organization_id, environment, url, events, secret, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        id,
        caller.organizationId,
        caller.environment,
        parsed.href,
        JSON.stringify([...new Set(events)]),
        secret,
        this.clock.now(),
      );
    return { ...this.object(this.find(caller, id)), secret };
  }

  list(caller: Caller): Webhook[] {
    const rows = this.db
      .prepare('SELECT * FROM webhooks WHERE organization_id = ? AND environment = ? ORDER BY created_at, id')
      .all(caller.organizationId, caller.environment) as WebhookRow[];
    return rows.map((r) => this.object(r));
  }

  find(caller: Caller, id: string): WebhookRow {
    const row = isId(id)
      ? (this.db.prepare('SELECT * FROM webhooks WHERE id = ?').get(id) as WebhookRow | undefined)
      : undefined;
    return owned(caller, row, `Webhook ${JSON.stringify(id)}`);
  }

  /** Deliveries already made for it stop being retried. */
  remove(caller: Caller, id: string): { success: true } {
    this.find(caller, id);
    this.db.prepare('DELETE FROM webhooks WHERE id = ?').run(id);
    return { success: true };
  }

  private object(row: WebhookRow): Webhook {
    return {
      _id: row.id,
      url: row.url,
      events: JSON.parse(row.events) as WebhookEvent[],
      creation_time: iso(row.created_at),
    };
  }

  /** Queues the event to every webhook of the organization and environment that takes it (one transaction). */
  emit(organizationId: string, environment: string, event: WebhookEvent, payload: unknown): void {
    const hooks = this.db
      .prepare('SELECT * FROM webhooks WHERE organization_id = ? AND environment = ?')
      .all(organizationId, environment) as WebhookRow[];
    const body = JSON.stringify({ event, payload });
    this.db.transaction(() => {
      for (const hook of hooks.filter((h) => (JSON.parse(h.events) as string[]).includes(event))) {
        const id = newSecret('msg_', 18);
        this.db
          .prepare(
            `INSERT INTO webhook_deliveries (id, webhook_id, event, body, state, created_at) VALUES (?, ?, ?, ?, 'pending', ?)`,
          )
          .run(id, hook.id, event, body, this.clock.now());
        this.jobs.enqueue(DELIVER_WEBHOOK, { deliveryId: id }, undefined, organizationId);
      }
    })();
  }

  /**
   * By the sweeper: deliveries made over 30 days ago. Each one is settled by then (delivered, or given up after
   * about 27.6 hours of retries), or its webhook was deleted and it will never be tried again.
   */
  prune(): void {
    this.db
      .prepare('DELETE FROM webhook_deliveries WHERE created_at < ?')
      .run(this.clock.now() - PRUNE_DELIVERIES_AFTER_MS);
  }

  /** The DELIVER_WEBHOOK job: one attempt; a failure asks the job runner to come back after the next wait. */
  async deliver(deliveryId: string, signal: AbortSignal): Promise<void> {
    const delivery = this.db.prepare('SELECT * FROM webhook_deliveries WHERE id = ?').get(deliveryId) as
      { id: string; webhook_id: string; body: string; state: string; attempts: number } | undefined;
    const hook =
      delivery &&
      (this.db.prepare('SELECT * FROM webhooks WHERE id = ?').get(delivery.webhook_id) as WebhookRow | undefined);
    if (!delivery || delivery.state !== 'pending' || !hook) return;
    const timestamp = Math.floor(this.clock.now() / 1000);
    const attempts = delivery.attempts + 1;
    let status: number | null = null;
    let error: string | null = null;
    try {
      // Checked again at each attempt (a name may resolve elsewhere now), and connected to the address checked.
      const target = await checkUrl(hook.url, this.outbound);
      status = await post(
        target,
        delivery.body,
        {
          'content-type': 'application/json',
          'user-agent': 'video-service-webhooks/1',
          'webhook-id': delivery.id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': sign(hook.secret, delivery.id, timestamp, delivery.body),
        },
        AbortSignal.any([signal, AbortSignal.timeout(ATTEMPT_TIMEOUT_MS)]),
      );
      if (status < 200 || status > 299) error = `answered ${status}`;
    } catch (err) {
      if (signal.aborted) throw err;
      error = err instanceof RefusedUrl ? `refused: ${err.message}` : (err as Error).message;
    }
    const wait = RETRY_WAITS_MS[attempts - 1];
    const state = error === null ? 'delivered' : wait === undefined ? 'failed' : 'pending';
    this.db
      .prepare(
        'UPDATE webhook_deliveries SET attempts = ?, last_status = ?, last_error = ?, state = ?, delivered_at = ? WHERE id = ?',
      )
      .run(attempts, status, error, state, state === 'delivered' ? this.clock.now() : null, delivery.id);
    if (state === 'pending') throw new RetryAt(this.clock.now() + wait!, `webhook ${hook.url} ${error}`);
  }
}

/** Standard Webhooks: base64 HMAC-SHA256 of `id.timestamp.body`, keyed with the secret's bytes after `whsec_`. */
export function sign(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}
