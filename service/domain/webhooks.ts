import { createHmac, randomBytes } from 'node:crypto';
import { iso, type Clock } from '../clock.js';
import type { Db, Executor } from '../db/index.js';
import { isId, newId, newSecret } from '../ids.js';
import { RetryAt, type Jobs } from '../jobs.js';
import { retryOutage } from '../outages.js';
import { checkUrl, post, RefusedUrl, type OutboundPolicy } from '../net/outbound.js';
import { WEBHOOK_EVENTS } from '../../src/api/contract.js';
import { MAX_WEBHOOKS } from '../../src/api/limits.js';
import type { CreateWebhookRequest, Webhook } from '../../src/api/types.js';
import { owned, type Accounts, type Caller } from './accounts.js';
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
  /** The organization's lock, held while its webhooks are counted (domain/accounts.ts). */
  accounts: Accounts;
}

/** Webhook endpoints (decision: POST/GET/DELETE /webhooks) and the durable delivery of events to them. */
export class Webhooks {
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly jobs: Jobs;
  private readonly outbound: OutboundPolicy;
  private readonly accounts: Accounts;

  constructor(options: WebhooksOptions) {
    ({ db: this.db, clock: this.clock, jobs: this.jobs, outbound: this.outbound, accounts: this.accounts } = options);
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
    const id = newId();
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    // Counted and inserted under the organization's lock: two at once, to any process, never pass the cap.
    await this.db.transaction().execute(async (trx) => {
      await this.accounts.lockOrganization(trx, caller.organizationId);
      const { n } = await trx
        .selectFrom('webhooks')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('organization_id', '=', caller.organizationId)
        .where('environment', '=', caller.environment)
        .executeTakeFirstOrThrow();
      if (Number(n) >= MAX_WEBHOOKS) {
        throw new ServiceError(
          'too_many_webhooks',
          `An organization has at most ${MAX_WEBHOOKS} webhooks in an environment; delete one first.`,
        );
      }
      await trx
        .insertInto('webhooks')
        .values({
          id,
          organization_id: caller.organizationId,
          environment: caller.environment,
          url: parsed.href,
          events: JSON.stringify([...new Set(events)]),
          secret,
          created_at: this.clock.now(),
        })
        .execute();
    });
    return { ...this.object(await this.find(caller, id)), secret };
  }

  async list(caller: Caller): Promise<Webhook[]> {
    const rows = await this.db
      .selectFrom('webhooks')
      .selectAll()
      .where('organization_id', '=', caller.organizationId)
      .where('environment', '=', caller.environment)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map((r) => this.object(r));
  }

  async find(caller: Caller, id: string): Promise<WebhookRow> {
    const row = isId(id)
      ? await this.db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst()
      : undefined;
    return owned(caller, row, `Webhook ${JSON.stringify(id)}`);
  }

  /** Deliveries already made for it stop being retried. */
  async remove(caller: Caller, id: string): Promise<{ success: true }> {
    await this.find(caller, id);
    await this.db.deleteFrom('webhooks').where('id', '=', id).execute();
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

  /**
   * Queues the event to every webhook of the organization and environment that takes it, in one transaction: the
   * caller's (`db`), so that the event commits with what it tells of (domain/ready.ts), or one of its own.
   */
  async emit(
    organizationId: string,
    environment: string,
    event: WebhookEvent,
    payload: unknown,
    db: Executor = this.db,
  ): Promise<void> {
    const hooks = await db
      .selectFrom('webhooks')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('environment', '=', environment)
      .execute();
    const body = JSON.stringify({ event, payload });
    const queue = async (trx: Executor) => {
      for (const hook of hooks.filter((h) => (JSON.parse(h.events) as string[]).includes(event))) {
        const id = newSecret('msg_', 18);
        await trx
          .insertInto('webhook_deliveries')
          .values({ id, webhook_id: hook.id, event, body, state: 'pending', created_at: this.clock.now() })
          .execute();
        await this.jobs.enqueue(DELIVER_WEBHOOK, { deliveryId: id }, { group: organizationId, db: trx });
      }
    };
    await (db.isTransaction ? queue(db) : db.transaction().execute(queue));
  }

  /**
   * By the sweeper: deliveries made over 30 days ago. Each one is settled by then (delivered, or given up after
   * about 27.6 hours of retries), or its webhook was deleted and it will never be tried again.
   */
  async prune(): Promise<void> {
    await this.db
      .deleteFrom('webhook_deliveries')
      .where('created_at', '<', this.clock.now() - PRUNE_DELIVERIES_AFTER_MS)
      .execute();
  }

  /**
   * The DELIVER_WEBHOOK job: one attempt; a failure asks the job runner to come back after the next wait. The
   * database away (before the attempt, or when its outcome is written) is tried again after an outage's wait
   * (service/outages.ts): the delivery is sent again then, with its webhook-id, as at-least-once allows.
   */
  async deliver(deliveryId: string, signal: AbortSignal, attempt: number): Promise<void> {
    try {
      await this.attempt(deliveryId, signal);
    } catch (err) {
      if (!signal.aborted) retryOutage(err, attempt, this.clock.now());
      throw err;
    }
  }

  private async attempt(deliveryId: string, signal: AbortSignal): Promise<void> {
    const delivery = await this.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('id', '=', deliveryId)
      .executeTakeFirst();
    const hook =
      delivery &&
      (await this.db.selectFrom('webhooks').selectAll().where('id', '=', delivery.webhook_id).executeTakeFirst());
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
    await this.db
      .updateTable('webhook_deliveries')
      .set({
        attempts,
        last_status: status,
        last_error: error,
        state,
        delivered_at: state === 'delivered' ? this.clock.now() : null,
      })
      .where('id', '=', delivery.id)
      .execute();
    if (state === 'pending') throw new RetryAt(this.clock.now() + wait!, `webhook ${hook.url} ${error}`);
  }
}

/** Standard Webhooks: base64 HMAC-SHA256 of `id.timestamp.body`, keyed with the secret's bytes after `whsec_`. */
export function sign(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}
