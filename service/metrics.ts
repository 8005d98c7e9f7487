import { collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** One kind's queue as the database has it now (jobs.ts, `stats()`). */
export interface QueueStat {
  kind: string;
  /** Queued jobs whose time has come. */
  due: number;
  /** Jobs running, in any process. */
  running: number;
  /** When the oldest due job became due (service clock, ms); null when none is due. */
  oldestDueAt: number | null;
}

/** What /metrics reads at scrape time, each from the module that knows it. */
export interface MetricSources {
  queue(): Promise<QueueStat[]>;
  /** The service clock, for the age of the oldest due job. */
  now(): number;
  storedBytes(): Promise<number>;
  livePublishing(): number;
}

/**
 * How long the figures a scrape reads from the database (the queue, the stored bytes) serve the scrapes that follow
 * (service clock). A scrape costs the database at most this: however often /metrics is asked, by Prometheus or,
 * without a metrics token, by anyone who reaches it, these queries run at most once per this long per process.
 * Prometheus scrapes every 15 s or more, so a scrape still reads figures of its own.
 */
export const DATABASE_FIGURES_MS = 5_000;

/** How a job ended: `done`, `failed` (for good), `retry` (it runs again later) or `stopped` (the service stopped). */
export type JobOutcome = 'done' | 'failed' | 'retry' | 'stopped';

/**
 * The service's Prometheus metrics (docs/operations.md lists each): one registry per service, so two services in
 * one process (tests, benchmarks) never count into each other. Requests are labelled by route template
 * (`/videos/{id}`), never by URL: a URL holds ids, and the label set stays as small as the API.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly requests: Histogram<'method' | 'route' | 'status_class'>;
  private readonly jobs: Histogram<'kind' | 'outcome'>;
  /** Kinds seen queued or run: each keeps a series at 0 when its queue empties, so a graph falls to zero, not stops. */
  private readonly kinds = new Set<string>();

  constructor(sources: MetricSources) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.requests = new Histogram({
      name: 'video_http_request_duration_seconds',
      help: 'API requests by method, route template and status class (2xx…5xx): their count is the request rate',
      labelNames: ['method', 'route', 'status_class'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.jobs = new Histogram({
      name: 'video_job_duration_seconds',
      help: 'Jobs run by this process, by kind and outcome (done, failed, retry, stopped)',
      labelNames: ['kind', 'outcome'],
      // From a webhook delivery (tens of ms) to an hour-long encode.
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600],
      registers,
    });
    const kinds = this.kinds;
    const now = () => sources.now();
    // The three queue gauges of one scrape share one read.
    const queue = atMostEvery(DATABASE_FIGURES_MS, now, () => sources.queue());
    const storedBytes = atMostEvery(DATABASE_FIGURES_MS, now, () => sources.storedBytes());
    const queueGauge = (name: string, help: string, value: (stat: QueueStat) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['kind'],
        registers,
        async collect() {
          const stats = await queue();
          for (const s of stats) kinds.add(s.kind);
          for (const kind of kinds) this.set({ kind }, 0);
          for (const s of stats) this.set({ kind: s.kind }, value(s));
        },
      });
    queueGauge('video_jobs_due', 'Queued jobs whose time has come, by kind: the queue depth', (s) => s.due);
    queueGauge('video_jobs_running', 'Jobs running, in every process, by kind', (s) => s.running);
    queueGauge('video_jobs_oldest_due_age_seconds', 'How long the oldest due job of each kind has waited', (s) =>
      s.oldestDueAt === null ? 0 : Math.max(0, (sources.now() - s.oldestDueAt) / 1000),
    );
    new Gauge({
      name: 'video_stored_source_bytes',
      help: "Bytes of the videos' sources, as the storage quotas count them (renditions and temporary recordings aside)",
      registers,
      async collect() {
        this.set(await storedBytes());
      },
    });
    new Gauge({
      name: 'video_live_streams_publishing',
      help: 'Live streams an encoder is publishing to this ingest now',
      registers,
      collect() {
        this.set(sources.livePublishing());
      },
    });
  }

  /** One API request answered: `route` is its template (`/videos/{id}`), or `unmatched`. */
  requestFinished(method: string, route: string, status: number, seconds: number): void {
    this.requests.observe({ method, route, status_class: `${Math.floor(status / 100)}xx` }, seconds);
  }

  /** One job ended (jobs.ts calls it). */
  readonly jobFinished = (kind: string, outcome: JobOutcome, seconds: number): void => {
    this.kinds.add(kind);
    this.jobs.observe({ kind, outcome }, seconds);
  };
}

/**
 * `read`, asked at most once per `ms` of `now`: the calls in between get its last answer, or share the one under way.
 * A read that fails is not kept: the next call asks again.
 */
function atMostEvery<T>(ms: number, now: () => number, read: () => Promise<T>): () => Promise<T> {
  let last: { at: number; value: Promise<T> } | undefined;
  return () => {
    const at = now();
    // A clock moved back (a test's) starts again, as one moved past the period does.
    if (!last || at - last.at >= ms || at < last.at) {
      const value = read();
      const current = (last = { at, value });
      value.catch(() => {
        if (last === current) last = undefined;
      });
    }
    return last.value;
  };
}
