/**
 * The service on more than one machine (issue 30, item 5): two API processes behind nginx, two workers and an
 * ingest node, on the run's PostgreSQL and Ceph store (test/helpers/engines/cluster.ts), driven as users drive it:
 * the widget in Chromium, plain HTTP clients, an RTMP publisher. Processes are SIGKILLed and PostgreSQL restarted
 * under it; what the users did must all be there afterwards, each job's work recorded once.
 *
 *   npx tsx scripts/with-engines.ts -- node --import tsx --test test/scale/cluster.test.ts
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { chromium, type Browser, type Page } from 'playwright';
import { build } from 'vite';
import { dropThumbnailGenerator, pruneUppyCss } from '../../vite.config.js';
import { chromiumLaunchOptions } from '../helpers/browser.js';
import type { StoreRequest } from '../helpers/engines/ceph.js';
import { startCluster, type Cluster } from '../helpers/engines/cluster.js';
import { restartPostgres } from '../helpers/engines/postgres.js';
import { scaleEngines } from '../helpers/engines/environment.js';
import { push } from '../helpers/live.js';
import { decodeProblems, media, probeDuration, sha256 } from '../helpers/media.js';
import { Receiver } from '../helpers/receiver.js';
import { until } from '../helpers/service.js';
import { serveStatic } from '../helpers/static.js';
import { tempDir } from '../helpers/temp.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** S3's smallest part but the last: the widget's chunks are exactly this (its units are binary). */
const CHUNK = '5MB';
/** A video is encoded within a few seconds here; four at once on two busy cores, with a restart among them, more. */
const READY_TIMEOUT_MS = 180_000;

/** A JSON call on one address (the balancer, or one API process); `token: null` sends no Authorization. */
async function call(origin: string, method: string, path: string, { token, body }: { token?: string; body?: unknown }) {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined || method === 'POST') headers['content-type'] = 'application/json';
  const res = await fetch(origin + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON: keep the text */
  }
  return { status: res.status, body: parsed };
}

/**
 * A JSON call on one API process as nginx passes it on: with the Host header the client sent the balancer (fetch
 * always sends the address it connects to).
 */
function callAs(
  host: string,
  origin: string,
  method: string,
  path: string,
  { token, body }: { token?: string; body?: unknown },
) {
  const headers: Record<string, string> = { host };
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  return new Promise<{ status: number; body: any }>((resolve, reject) => {
    const sent = request(origin + path, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        let parsed: any = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          /* not JSON: keep the text */
        }
        resolve({ status: res.statusCode!, body: parsed });
      });
    });
    sent.on('error', reject);
    sent.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** Waits for #8 to say `ready` (or `failed`, which the caller's assertion then names). */
function waitForVideo(origin: string, token: string, id: string, timeoutMs = READY_TIMEOUT_MS) {
  return until(
    `video ${id} to be ready`,
    async () => {
      const { status, body } = await call(origin, 'GET', `/videos/${id}`, { token }).catch(() => ({
        status: 0,
        body: undefined,
      }));
      return status === 200 && (body.status === 'ready' || body.status === 'failed') ? body : undefined;
    },
    timeoutMs,
  );
}

/** #1, #2 and the PUT to the store the link names, as a server-side integrator uploads a file. */
async function uploadByLink(origin: string, token: string, file: string): Promise<string> {
  const video = await call(origin, 'POST', '/videos', { token, body: { file_name: 'clip.mp4' } });
  assert.equal(video.status, 200, JSON.stringify(video.body));
  const link = await call(origin, 'POST', `/videos/${video.body._id}/uploads`, { token });
  assert.equal(link.status, 200, JSON.stringify(link.body));
  const put = await fetch(link.body.url, {
    method: 'PUT',
    body: await readFile(file),
    headers: { 'content-type': 'video/mp4' },
  });
  assert.equal(put.status, 200, await put.text());
  return video.body._id;
}

/** The store, as the tests read it: an object's bytes by the end of its key under the cluster's prefix. */
function storeOf(cluster: Cluster) {
  const { endpoint, region, bucket, credentials } = cluster.s3;
  const s3 = new S3Client({ endpoint, region, credentials, forcePathStyle: true });
  const prefix = `${new URL(cluster.storage).pathname.slice(1)}/`;
  return {
    /** SHA-256 of the one object whose key ends with `suffix` (a video's source: `/videos/<id>/source`). */
    async sha256(suffix: string): Promise<string> {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await s3.send(
          new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
        );
        keys.push(...(page.Contents ?? []).map((object) => object.Key!).filter((key) => key.endsWith(suffix)));
        token = page.NextContinuationToken;
      } while (token);
      assert.equal(keys.length, 1, `one object ends with ${suffix} under ${prefix}: ${keys.join(', ')}`);
      const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: keys[0] }));
      return createHash('sha256')
        .update(await object.Body!.transformToByteArray())
        .digest('hex');
    },
    close: () => s3.destroy(),
  };
}

/**
 * The process-video job of a video, from the queue's table: its state, the worker (`host:pid:…`) holding it and
 * until when (`lease_until`), when it was claimed or ended (`run_at`) and its runs (`attempts`). Times are ms of
 * the service's clock, which in production is this machine's, as the test's.
 */
async function processingJobs(cluster: Cluster, videoId: string) {
  const rows = await cluster.query<{
    state: string;
    worker: string | null;
    lease_until: string | null;
    run_at: string;
    attempts: string;
  }>(
    `SELECT state, worker, lease_until, run_at, attempts FROM jobs WHERE kind = 'process-video' AND payload LIKE $1 ORDER BY id`,
    [`%"${videoId}"%`],
  );
  // BIGINT columns come as strings from pg.
  return rows.map((row) => ({
    ...row,
    leaseUntil: row.lease_until === null ? null : Number(row.lease_until),
    runAt: Number(row.run_at),
    attempts: Number(row.attempts),
  }));
}

/** What the database holds of a video, its links and its jobs: the story a timeout tells. */
async function rowsOf(cluster: Cluster, videoId: string): Promise<string> {
  const [video, links, jobs] = await Promise.all([
    cluster.query(`SELECT status, failure_reason, completing_until, updated_at FROM videos WHERE id = $1`, [videoId]),
    cluster.query(`SELECT id, created_at, closed_at FROM upload_links WHERE video_id = $1`, [videoId]),
    cluster.query(
      `SELECT id, kind, state, worker, lease_until, run_at, attempts, last_error FROM jobs WHERE payload LIKE $1`,
      [`%"${videoId}"%`],
    ),
  ]);
  return JSON.stringify({ now: Date.now(), video, links, jobs });
}

/**
 * The video's jobs once none runs: a video is ready a moment before its job's end is recorded (the handler announces
 * it first).
 */
function jobsEnded(cluster: Cluster, videoId: string) {
  return until('the end of the job to be recorded', async () => {
    const rows = await processingJobs(cluster, videoId);
    return rows.every((row) => row.state !== 'running') ? rows : undefined;
  });
}

/**
 * The video's job once a worker other than `holder` runs it: its `runAt` is then when that worker claimed it. (Once
 * done, `run_at` is when it ended.)
 */
function takenFrom(cluster: Cluster, videoId: string, holder: string, timeoutMs: number) {
  return until(
    'another worker to take the job',
    async () =>
      (await processingJobs(cluster, videoId)).find(
        (job) => job.state === 'running' && job.worker !== null && job.worker !== holder,
      ),
    timeoutMs,
  );
}

/** Whether process `pid` has an ffmpeg child right now, as `ps` would tell: a worker encoding. */
async function runsFfmpeg(pid: number): Promise<boolean> {
  const children = (await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '')).split(' ');
  const names = await Promise.all(
    children.filter(Boolean).map((child) => readFile(`/proc/${child}/comm`, 'utf8').catch(() => '')),
  );
  return names.some((name) => name.trim() === 'ffmpeg');
}

/** The video-ready deliveries the service made for `videoId` (rows of webhook_deliveries): one per run that announced it. */
async function readyAnnouncements(cluster: Cluster, videoId: string): Promise<number> {
  const rows = await cluster.query(`SELECT id FROM webhook_deliveries WHERE event = 'video-ready' AND body LIKE $1`, [
    `%"${videoId}"%`,
  ]);
  return rows.length;
}

const pidOf = (worker: string) => Number(worker.split(':').at(-2));

/** The deliveries of video-ready the receiver got for `videoId`, by their webhook-id (a retry repeats its id). */
function readyDeliveries(receiver: Receiver, videoId: string): string[] {
  return receiver.received
    .filter((got) => JSON.parse(got.body).payload?._id === videoId)
    .map((got) => String(got.headers['webhook-id']));
}

/** Builds test/scale/page.html for production, as an integrator ships the element, into a folder of its own. */
async function buildPage(): Promise<string> {
  const outDir = await tempDir('scale-page-');
  await build({
    configFile: false,
    root: ROOT,
    // Its warnings (chunk sizes, the wasm URL left to the browser) are the package build's to heed, not this test's.
    logLevel: 'error',
    plugins: [pruneUppyCss(), dropThumbnailGenerator()],
    build: { outDir, target: 'es2022', rollupOptions: { input: [join(ROOT, 'test/scale/page.html')] } },
  });
  return outDir;
}

describe('the service as a cluster: two API processes behind nginx, two workers, an ingest node', () => {
  let cluster: Cluster;
  let store: ReturnType<typeof storeOf>;
  let token: string;
  let receiver: Receiver;
  let browser: Browser;
  let pageUrl: string;
  let closePage: () => void;

  before(async () => {
    const [started, dist] = await Promise.all([
      // A recording is complete one second after its publish stopped: no test clock to move in a cluster.
      startCluster({ args: ['--merge-window-seconds', '1'] }),
      buildPage(),
    ]);
    cluster = started;
    store = storeOf(cluster);
    token = await cluster.token('acme');
    receiver = await new Receiver().listen();
    const hook = await call(cluster.url, 'POST', '/webhooks', {
      token,
      body: { url: receiver.url, events: ['video-ready'] },
    });
    assert.equal(hook.status, 200, JSON.stringify(hook.body));
    const served = await serveStatic(dist, cluster.url);
    pageUrl = `${served.url}test/scale/page.html`;
    closePage = () => served.server.close();
    browser = await chromium.launch({ ...chromiumLaunchOptions(), headless: true });
  });

  after(async () => {
    await browser?.close();
    closePage?.();
    store?.close();
    await receiver?.close();
    await cluster?.stop();
  });

  /** A fresh page with the element configured on the balancer; every request the page sends is kept. */
  async function widget(attributes: Record<string, string>) {
    const page = await browser.newPage();
    const requests: { method: string; url: string }[] = [];
    page.on('request', (request) => requests.push({ method: request.method(), url: request.url() }));
    await page.goto(pageUrl);
    await page.evaluate(([t, a]) => (window as any).configure(t, a), [
      token,
      { 'base-url': cluster.url, ...attributes },
    ] as const);
    // The Dashboard takes files once Golden Retriever has restored (see UppyController.loadPlugins).
    await page.waitForSelector('video-uploader .uppy-Dashboard:not(.uppy-Dashboard--isDisabled)', {
      timeout: 60_000,
    });
    return { page, requests };
  }

  /** The detail of the element's first event `type`; an upload-error fails at once, naming the error. */
  async function event(page: Page, type: string, timeout = READY_TIMEOUT_MS): Promise<any> {
    const handle = await page.waitForFunction(
      (wanted) => {
        const events = (window as any).events as { type: string; detail: any }[];
        const failed = events.find((e) => e.type === 'upload-error');
        if (failed) return { failed: String(failed.detail?.error?.message ?? failed.detail?.error) };
        return events.find((e) => e.type === wanted)?.detail;
      },
      type,
      { timeout, polling: 100 },
    );
    const detail = await handle.jsonValue();
    assert.equal(detail.failed, undefined, `the element fired upload-error: ${detail.failed}`);
    return detail;
  }

  /** The element's preview plays the video: it moves past 2 s, at the size it was uploaded. */
  async function previewPlays(page: Page, width: number) {
    await page.waitForFunction(
      (w) => {
        const video = document.querySelector('video-uploader')?.shadowRoot?.querySelector('video');
        return !!video && video.currentTime > 2 && video.videoWidth === w;
      },
      width,
      { timeout: READY_TIMEOUT_MS, polling: 250 },
    );
  }

  const pick = (page: Page, file: string) =>
    page.locator('video-uploader .uppy-Dashboard-input').first().setInputFiles(file);

  /** The PUTs the page sent: to the store, and anywhere else (the balancer, an API process, its storage origin). */
  const putsOf = (requests: { method: string; url: string }[]) => {
    const puts = requests.filter((r) => r.method === 'PUT');
    const toStore = (r: { url: string }) => r.url.startsWith(`${cluster.s3.endpoint}/`);
    return { toStore: puts.filter(toStore).length, elsewhere: puts.filter((r) => !toStore(r)).map((r) => r.url) };
  };

  it('the widget uploads by link and in chunks through the balancer, straight to the store, and the videos play', async () => {
    const single = await media('h264-aac-720p-10s.mp4');
    const chunked = await media('h264-aac-720p-10s-12mb.mp4');
    const balancedBefore = (await cluster.balancer.requests()).length;

    // By link: one presigned PutObject of the source.
    const byLink = await widget({ 'multipart-threshold': '5GB' });
    await pick(byLink.page, single);
    const { videoId: linkId } = await event(byLink.page, 'upload-success');
    await cluster.waitForStoreRequests((requests) =>
      requests.some((r) => r.method === 'PUT' && r.path.includes(`/videos/${linkId}/source`) && r.status === 200),
    );
    assert.equal(await store.sha256(`/videos/${linkId}/source`), await sha256(single));
    await previewPlays(byLink.page, 1280);
    assert.deepEqual(putsOf(byLink.requests), { toStore: 1, elsewhere: [] }, 'the file went to the store, once');
    await byLink.page.close();

    // In chunks: presigned UploadParts, each 5 MiB but the last.
    const inChunks = await widget({ 'multipart-threshold': '1MB', 'chunk-size': CHUNK });
    await pick(inChunks.page, chunked);
    const { videoId: chunkedId } = await event(inChunks.page, 'upload-success');
    const chunks = Math.ceil((await stat(chunked)).size / (5 * 1024 * 1024));
    const ofSource = (r: StoreRequest) => r.status === 200 && r.path.includes(`/videos/${chunkedId}/source?`);
    // Each chunk a presigned UploadPart from the browser, then the service's CompleteMultipartUpload (#6).
    await cluster.waitForStoreRequests(
      (requests) =>
        new Set(
          requests
            .filter((r) => r.method === 'PUT' && ofSource(r))
            .map((r) => /[?&]partNumber=(\d+)/.exec(r.path)?.[1]),
        ).size === chunks && requests.some((r) => r.method === 'POST' && ofSource(r) && /[?&]uploadId=/.test(r.path)),
    );
    assert.equal(await store.sha256(`/videos/${chunkedId}/source`), await sha256(chunked));
    await previewPlays(inChunks.page, 1280);
    assert.deepEqual(
      putsOf(inChunks.requests),
      { toStore: chunks, elsewhere: [] },
      'every chunk went from the browser to the store',
    );
    await inChunks.page.close();

    // No API process saw an uploaded byte: nothing but the JSON calls passed the balancer.
    const balanced = (await cluster.balancer.requests()).slice(balancedBefore);
    assert.deepEqual(
      balanced.filter((r) => r.method === 'PUT'),
      [],
    );
    const apis = new Set(balanced.flatMap((r) => r.upstreams));
    assert.equal(apis.size, 2, `both API processes answered the widget: ${[...apis].join(', ')}`);
    for (const id of [linkId, chunkedId]) {
      assert.equal((await call(cluster.url, 'GET', `/videos/${id}`, { token })).body.status, 'ready');
    }
  });

  it('an API process SIGKILLed in the middle of a chunked upload: the upload finishes through the other one', async () => {
    const file = await media('h264-aac-720p-12s-21mb.mp4');
    const { page } = await widget({ 'multipart-threshold': '1MB', 'chunk-size': CHUNK, 'parallel-uploads': '1' });
    // Slowed to about 2 MiB/s, so that the upload is still under way, chunk after chunk, when the process dies.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: 2 * 1024 * 1024,
    });
    await pick(page, file);
    const created = await event(page, 'video-created');
    await cluster.waitForStoreRequests(
      (requests) =>
        requests.some(
          (r) => r.method === 'PUT' && r.status === 200 && r.path.includes(`/videos/${created.videoId}/source?`),
        ),
      60_000,
    );
    const killedAt = (await cluster.balancer.requests()).length;
    await cluster.kill('api1');
    try {
      const { videoId } = await event(page, 'upload-success');
      assert.equal(videoId, created.videoId);
      assert.equal(await store.sha256(`/videos/${videoId}/source`), await sha256(file), 'nothing lost');
      const video = await waitForVideo(cluster.url, token, videoId);
      assert.equal(video.status, 'ready', JSON.stringify(video));
      const after = (await cluster.balancer.requests()).slice(killedAt);
      const api2 = new URL(cluster.process('api2').api!).host;
      assert.ok(
        after.some((r) => r.method === 'POST' && r.status === 200 && r.upstreams.at(-1) === api2),
        'the other API process answered the rest of the upload',
      );
    } finally {
      await page.close();
      await cluster.restart('api1');
    }
  });

  it('a worker SIGKILLed while encoding: the other, on the same machine, takes the job at once and finishes it once', async () => {
    // MPEG-2, 20 s of 720p: encoded into both rungs, which takes a worker many seconds here.
    const file = await media('mpeg2-mp2-720p-20s.ts');
    const videoId = await uploadByLink(cluster.url, token, file);
    const running = await until(
      'the video to be encoding on a worker',
      async () => (await processingJobs(cluster, videoId)).find((job) => job.state === 'running' && job.worker),
      60_000,
    );
    const workers = (['worker1', 'worker2'] as const).map((name) => cluster.process(name));
    const encoding = workers.find((worker) => worker.pid === pidOf(running.worker!));
    assert.ok(encoding, `a worker process holds the job (${running.worker}), not ${workers.map((w) => w.pid)}`);
    await cluster.kill(encoding.name);
    try {
      const [killed] = await processingJobs(cluster, videoId);
      assert.notEqual(killed?.state, 'done', 'the worker was killed before it finished the job');
      // The other saw the holder's PID gone from this machine: it did not wait for the lease (the next case does),
      // which ran at least until what it was before the kill.
      const taken = await takenFrom(cluster, videoId, running.worker!, READY_TIMEOUT_MS);
      assert.ok(
        taken.runAt < running.leaseUntil!,
        `taken ${running.leaseUntil! - taken.runAt} ms before the lease's end`,
      );
      const video = await waitForVideo(cluster.url, token, videoId);
      assert.equal(video.status, 'ready', JSON.stringify(video));
      assert.deepEqual(
        (await jobsEnded(cluster, videoId)).map((job) => job.state),
        ['done'],
      );
      const deliveries = await until('video-ready to be delivered', async () => {
        const ids = readyDeliveries(receiver, videoId);
        return ids.length > 0 ? ids : undefined;
      });
      // A second run recorded to completion would announce the video again, with a delivery of its own.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      // Counted as sent, not by webhook-id: a delivery sent twice with the same id is a second run too.
      assert.equal(readyDeliveries(receiver, videoId).length, 1, `one video-ready: ${deliveries.join(', ')}`);
    } finally {
      await cluster.restart(encoding.name);
    }
  });

  it('a worker in a container of its own SIGKILLed while encoding: the other takes the job only after its lease, and finishes it once', async () => {
    // Both workers as in containers on one machine (a PID namespace each, one host name): neither can see whether the
    // other's process runs, so only the lease tells that a job was abandoned.
    const workers = await Promise.all(
      // A lease of 10 s, not the 30 s default: what is tested is that the other waits for its end, whatever it is.
      (['worker1', 'worker2'] as const).map((name) =>
        cluster.restart(name, { pidNamespace: true, args: ['--job-lease-seconds', '10'] }),
      ),
    );
    try {
      const file = await media('mpeg2-mp2-720p-20s.ts');
      const videoId = await uploadByLink(cluster.url, token, file);
      const { encoding, holder } = await until(
        'the video to be encoding on a worker',
        async () => {
          const job = (await processingJobs(cluster, videoId)).find((row) => row.state === 'running' && row.worker);
          // The worker ids name PID 1 for both: the one encoding is the one running ffmpeg.
          for (const worker of workers) {
            if (job && (await runsFfmpeg(worker.pid))) return { encoding: worker, holder: job.worker! };
          }
          return undefined;
        },
        60_000,
      );
      await cluster.kill(encoding.name);
      const killedAt = Date.now();
      // Dead, it renews its lease no more: the lease it left is read now, and holds until it runs out.
      const [killed] = await processingJobs(cluster, videoId);
      assert.equal(killed!.worker, holder, 'the dead worker still holds the job');
      const leaseUntil = killed!.leaseUntil!;
      assert.ok(leaseUntil > killedAt, 'it died with its lease running');
      assert.ok(leaseUntil - killedAt <= 10_000, `a lease of --job-lease-seconds 10: ${leaseUntil - killedAt} ms left`);

      const taken = await takenFrom(cluster, videoId, holder, READY_TIMEOUT_MS);
      assert.ok(
        taken.runAt >= leaseUntil,
        `taken again ${taken.runAt - killedAt} ms after the kill, ${leaseUntil - taken.runAt} ms before its lease's end`,
      );
      const video = await waitForVideo(cluster.url, token, videoId);
      assert.equal(video.status, 'ready', JSON.stringify(video));
      const jobs = await jobsEnded(cluster, videoId);
      assert.deepEqual(
        jobs.map(({ state, attempts }) => ({ state, attempts })),
        [{ state: 'done', attempts: 2 }],
        "the dead worker's run, then the other's",
      );
      assert.equal(await readyAnnouncements(cluster, videoId), 1, 'one video-ready');
    } finally {
      await Promise.all([cluster.restart('worker1'), cluster.restart('worker2')]);
    }
  });

  it('PostgreSQL restarted under load: every process reconnects, nothing is lost, no job runs twice to completion', async () => {
    const file = await media('h264-aac-720p-10s.mp4');
    const ids = await Promise.all([1, 2, 3, 4].map(() => uploadByLink(cluster.url, token, file)));
    await until(
      'a video to be encoding',
      async () => {
        const jobs = await Promise.all(ids.map((id) => processingJobs(cluster, id)));
        return jobs.flat().some((job) => job.state === 'running') || undefined;
      },
      60_000,
    );
    // Clients keep calling through the restart, as users would.
    let calling = true;
    const calls = (async () => {
      const statuses: number[] = [];
      while (calling) {
        statuses.push(
          await call(cluster.url, 'GET', '/webhooks', { token }).then(
            (r) => r.status,
            () => 0,
          ),
        );
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return statuses;
    })();
    await restartPostgres(scaleEngines().databaseUrl);

    // Each API process on its own, not only one behind the balancer.
    for (const name of ['api1', 'api2'] as const) {
      await until(
        `${name} to answer after the restart`,
        // An answer the document does not list (a 503 while the database is away) is one more try, not a failure.
        async () =>
          (await call(cluster.process(name).api!, 'GET', '/webhooks', { token }).then(
            (r) => r.status,
            () => 0,
          )) === 200 || undefined,
        60_000,
      );
    }
    // Uploads begun after the restart are taken and processed too.
    ids.push(await uploadByLink(cluster.url, token, file));
    calling = false;
    const statuses = await calls;
    assert.equal(statuses.at(-1), 200, `the last calls through the restart: ${statuses.slice(-10).join(' ')}`);

    for (const id of ids) {
      const video = await waitForVideo(cluster.url, token, id).catch(async (error: Error) => {
        error.message += `\n${await rowsOf(cluster, id)}`;
        throw error;
      });
      assert.equal(video.status, 'ready', JSON.stringify(video));
      assert.equal(await store.sha256(`/videos/${id}/source`), await sha256(file), `the source of ${id}`);
      assert.deepEqual(
        (await jobsEnded(cluster, id)).map((job) => job.state),
        ['done'],
        `the job of ${id}`,
      );
    }
    await until(
      'every video-ready to be delivered',
      async () => ids.every((id) => readyDeliveries(receiver, id).length > 0) || undefined,
    );
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    for (const id of ids) {
      const sent = readyDeliveries(receiver, id);
      assert.equal(sent.length, 1, `one video-ready for ${id}, sent once: ${sent.join(', ')}`);
    }
    // The ingest node and the workers answer their readiness checks again, where they have an HTTP address.
    for (const name of ['worker1', 'worker2', 'ingest'] as const) {
      const health = Object.values(cluster.process(name).ready.addresses).find((a) => a.startsWith('http'));
      if (!health) continue;
      // Each check of /readyz has 2 s to answer, which a machine shared with other runs sometimes misses.
      let answer = '';
      await until(
        `${name} to be ready again`,
        async () => {
          answer = await fetch(`${health}/readyz`).then(
            async (r) => `${r.status} ${await r.text()}`,
            (error: Error) => error.message,
          );
          return answer.startsWith('200 ') || undefined;
        },
        READY_TIMEOUT_MS,
      ).catch((error: Error) =>
        assert.fail(`${error.message}; its last answer: ${answer}; its output:\n${cluster.process(name).output()}`),
      );
    }
  });

  it('a live push recorded by the ingest node plays from either API process and converts (#10) on a worker', async () => {
    const created = await call(cluster.url, 'POST', '/live_streams', { token, body: { name: 'studio' } });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const stream = created.body;
    const ingest = cluster.process('ingest').rtmp;
    assert.ok(ingest, `the ingest node's ready line names its RTMP address: ${cluster.process('ingest').output()}`);
    assert.equal(await push(`${ingest}/${stream.stream_key}`, 6), 0, 'the publish ran to its end');

    const recordings = (origin: string) =>
      call(origin, 'GET', `/live_streams/${stream._id}/temporary_recordings`, { token });
    const recording = await until(
      'the recording to be complete',
      async () => {
        const { body } = await recordings(cluster.url);
        return Array.isArray(body) && body[0]?.status === 'complete' ? body[0] : undefined;
      },
      READY_TIMEOUT_MS,
    );
    // temporary_playback names the balancer (--public-url): each API process is asked at its own address instead,
    // alone, for the playlist and, by the playlist's links, for its segments.
    const balancedBefore = (await cluster.balancer.requests()).length;
    for (const name of ['api1', 'api2'] as const) {
      const api = cluster.process(name).api!;
      const { status, body } = await recordings(api);
      assert.equal(status, 200);
      const onApi = new URL(body[0].playback.temporary_playback);
      onApi.host = new URL(api).host;
      const playlist = onApi.href;
      const listed = await fetch(playlist);
      assert.equal(listed.status, 200, `the playlist from ${name}`);
      const segment = (await listed.text()).split('\n').find((line) => line !== '' && !line.startsWith('#'));
      assert.ok(segment, `the playlist from ${name} lists a segment`);
      const got = await fetch(new URL(segment, playlist));
      assert.equal(got.status, 200, `a segment by ${name}'s link`);
      assert.equal(new Uint8Array(await got.arrayBuffer())[0], 0x47, `an MPEG-TS segment by ${name}'s link`);
      assert.deepEqual(await decodeProblems(playlist), [], `the recording plays from ${name}`);
      assert.ok(Math.abs((await probeDuration(playlist)) - recording.duration) <= 1, `its length, from ${name}`);
    }
    const balanced = (await cluster.balancer.requests()).slice(balancedBefore);
    assert.deepEqual(
      balanced.filter((r) => r.path.startsWith('/recordings/')),
      [],
      'none of it passed the balancer',
    );

    // With no worker running the conversion waits in the queue: neither an API process nor the ingest node runs it.
    await Promise.all([cluster.kill('worker1'), cluster.kill('worker2')]);
    try {
      const convert = await call(
        cluster.url,
        'POST',
        `/live_streams/${stream._id}/temporary_recordings/${recording._id}`,
        {
          token,
          body: {},
        },
      );
      assert.equal(convert.status, 200, JSON.stringify(convert.body));
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      const waiting = await cluster.query<{ state: string }>(`SELECT state FROM jobs WHERE kind = 'export-recording'`);
      assert.deepEqual(
        waiting.map((job) => job.state),
        ['queued'],
      );
    } finally {
      await Promise.all([cluster.restart('worker1'), cluster.restart('worker2')]);
    }
    const exported = await until(
      'the conversion to be exported',
      async () => {
        const { body } = await recordings(cluster.url);
        const entry = body[0]?.export_data?.[0];
        return entry?.status === 'EXPORTED' ? entry : undefined;
      },
      READY_TIMEOUT_MS,
    );
    const video = await waitForVideo(cluster.url, token, exported.video_id);
    assert.equal(video.status, 'ready', JSON.stringify(video));
    assert.ok(Math.abs((await probeDuration(video.playback.hls_url)) - recording.duration) <= 1);
  });

  it('holds no state in one API process that the other needs: a token, a session and a signed link', async () => {
    const api1 = cluster.process('api1').api!;
    const api2 = cluster.process('api2').api!;
    // Each asked as nginx asks it, with the Host the client gave the balancer: an answer may name the address the
    // client used, never the process that happened to answer it.
    const host = new URL(cluster.url).host;
    const same = async (method: string, path: string, body?: unknown) => {
      const [one, two] = [
        await callAs(host, api1, method, path, { token, body }),
        await callAs(host, api2, method, path, { token, body }),
      ];
      assert.deepEqual(two, one, `${method} ${path} answers the same from both`);
      return one;
    };
    // A token made by the command line: both know it and what its organization registered (one webhook), and both
    // refuse a wrong one alike.
    const webhooks = await same('GET', '/webhooks');
    assert.equal(webhooks.status, 200);
    assert.equal(webhooks.body.length, 1);
    const refused = await call(api1, 'GET', '/webhooks', { token: 'vt_nope' });
    assert.equal(refused.status, 401);
    assert.deepEqual(await call(api2, 'GET', '/webhooks', { token: 'vt_nope' }), refused);

    // A session begun on one: the other signs its chunks' links identically and completes it.
    const file = await media('h264-aac-720p-10s-12mb.mp4');
    const bytes = await readFile(file);
    const video = await call(api1, 'POST', '/videos', { token, body: { file_name: 'shared.mp4' } });
    const begun = await call(api1, 'POST', `/videos/${video.body._id}/multipart-upload/begin`, { token });
    assert.equal(begun.status, 200, JSON.stringify(begun.body));
    const key = begun.body.key;
    const size = 5 * 1024 * 1024;
    const eTags: string[] = [];
    for (let chunkId = 1; chunkId <= Math.ceil(bytes.length / size); chunkId++) {
      const link = await same('POST', '/videos/multipart-upload/get-chunk-upload-url', { key, chunkId });
      assert.equal(link.status, 200, JSON.stringify(link.body));
      const put = await fetch(link.body.url, {
        method: 'PUT',
        body: bytes.subarray((chunkId - 1) * size, chunkId * size),
      });
      assert.equal(put.status, 200);
      eTags.push(put.headers.get('etag')!);
    }
    const completed = await call(api2, 'POST', '/videos/multipart-upload/complete', {
      token,
      body: { key, chunks: eTags.map((eTag, i) => ({ chunkId: i + 1, eTag })) },
    });
    assert.equal(completed.status, 200, JSON.stringify(completed.body));
    await waitForVideo(api2, token, video.body._id);

    // The video as each describes it, its signed playback and download links included, byte for byte.
    const described = await same('GET', `/videos/${video.body._id}`);
    assert.equal(described.body.status, 'ready');
    assert.equal(await store.sha256(`/videos/${video.body._id}/source`), await sha256(file));
    assert.ok(Math.abs((await probeDuration(described.body.playback.hls_url)) - 10) <= 0.5, 'the signed link plays');
  });

  it("holds no rate limit in one API process: a token's requests count against one budget, whichever process answers", async () => {
    const limit = 10;
    const names = ['api1', 'api2'] as const;
    await Promise.all(names.map((name) => cluster.restart(name, { args: ['--rate-limit-per-minute', String(limit)] })));
    try {
      const apis = names.map((name) => cluster.process(name).api!);
      // A token of an organization of its own, made as the integrator makes one: nothing else counts against it,
      // whether the budget is the token's or its organization's.
      const metered = await cluster.token('metered');
      const statuses: number[] = [];
      for (let i = 0; i < limit; i++) {
        statuses.push((await call(apis[i % 2]!, 'GET', '/webhooks', { token: metered })).status);
      }
      assert.deepEqual(statuses, Array(limit).fill(200), 'within the limit, spread over both');
      // Each has answered half the limit: counting alone, either would answer again.
      for (const [i, api] of apis.entries()) {
        const refused = await call(api, 'GET', '/webhooks', { token: metered });
        assert.equal(
          refused.status,
          429,
          `${names[i]} refuses the request past the limit: ${JSON.stringify(refused.body)}`,
        );
        assert.equal(refused.body.error.code, 'rate_limited');
      }
    } finally {
      await Promise.all(names.map((name) => cluster.restart(name)));
    }
  });
});
