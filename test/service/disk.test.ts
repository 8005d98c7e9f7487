import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { readFile, rm, statfs, writeFile } from 'node:fs/promises';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { createStream, push, recordingsOf } from '../helpers/live.js';
import { media, sha256 } from '../helpers/media.js';
import {
  completeMultipart,
  put,
  startService,
  storedSha256,
  tempData,
  until,
  upload,
  waitForVideo,
  type RunningService,
} from '../helpers/service.js';
import { tempDir } from '../helpers/temp.js';

const MiB = 1024 ** 2;
const GiB = 1024 ** 3;
/**
 * The room these tests leave above the reserve. Other programs share the volume (other test runs, on this
 * machine), so every figure below stays hundreds of MiB away from the edge it tests: what must fit fits with
 * over 400 MiB to spare, and what must not passes the edge by over 170 MiB.
 */
const MARGIN = GiB;

const freeBytes = async (dir: string) => {
  const fs = await statfs(dir);
  return fs.bavail * fs.bsize;
};

/** The service, with its reserve (`--min-free-mb`) set `MARGIN` below the free space of its data volume now. */
async function startNearFull(args: string[] = []): Promise<{ service: RunningService; reserve: number }> {
  const data = await tempData();
  const reserveMb = Math.floor(((await freeBytes(data)) - MARGIN) / MiB);
  const service = await startService({ data, args: ['--min-free-mb', String(reserveMb), ...args] });
  return { service, reserve: reserveMb * MiB };
}

/**
 * What the service on `data` does below the reserve, then with room: `whileFull` runs on it started with a reserve
 * 1 GiB above the free space, `withRoom` on it started again with the default reserve.
 */
async function fullThenRoomy(
  data: string,
  whileFull: (service: RunningService) => Promise<void>,
  withRoom: (service: RunningService) => Promise<void>,
): Promise<void> {
  const reserveMb = Math.ceil((await freeBytes(data)) / MiB) + 1024;
  for (const [args, run] of [
    [['--min-free-mb', String(reserveMb)], whileFull],
    [[], withRoom],
  ] as const) {
    const service = await startService({ data, args: [...args] });
    try {
      await run(service);
    } finally {
      await service.stop();
    }
  }
}

/**
 * Takes the volume's room at once (fallocate), as a recording or another program would, until its free space is
 * `below` bytes under the reserve: measured now, since other programs share the volume and its free space moves.
 */
async function fillPastReserve(dir: string, reserve: number, below: number): Promise<() => Promise<void>> {
  const file = join(await tempDir('filler-'), 'filler');
  await promisify(execFile)('fallocate', ['-l', String((await freeBytes(dir)) - reserve + below), file]);
  return () => rm(file, { force: true });
}

/**
 * A PUT that declares `length` (undefined: chunked transfer encoding, no length) and sends its body only as the
 * test writes it; `answer` resolves with the service's answer, whenever it comes.
 */
function openPut(url: string, length: number | undefined) {
  const req = request(url, {
    method: 'PUT',
    headers: length === undefined ? {} : { 'content-length': String(length) },
  });
  req.on('error', () => {}); // the service closes a refused body's connection: its answer is what counts
  req.flushHeaders(); // the service decides on the headers alone
  // A test that waits for an answer that never comes fails after a minute, rather than hanging the suite.
  const answer = new Promise<{ status: number; body: any }>((resolve, reject) => {
    setTimeout(() => reject(new Error(`no answer to the PUT of ${url} after 60 s`)), 60_000).unref();
    req.once('response', (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text || '{}') }));
    });
  });
  let answered = false;
  answer.then(
    () => (answered = true),
    () => {},
  );
  return {
    req,
    path: new URL(url).pathname,
    answer,
    answered: () => answered,
    /**
     * Writes `bytes` more of the body (random), waiting for the socket to drain; stops once answered, or once the
     * service closed the connection under the writer (a refused body: EPIPE).
     */
    async send(bytes: number) {
      for (let sent = 0; sent < bytes && !answered && !req.destroyed; sent += MiB) {
        if (!req.write(randomBytes(Math.min(MiB, bytes - sent))))
          await Promise.race([once(req, 'drain'), once(req, 'close'), answer].map((p) => p.catch(() => {})));
      }
    },
  };
}

/** The status the storage answered the last PUT of `path` with, once it has (test hooks' request log). */
async function loggedStatus(service: RunningService, path: string): Promise<number | undefined> {
  const { requests } = (await service.call('GET', '/__test__/storage-requests')).body as {
    requests: { path: string; endedAt?: number; status?: number }[];
  };
  const last = requests.filter((r) => r.path === path).at(-1);
  return last?.endedAt === undefined ? undefined : last.status;
}

/** Bytes the storage took for a link's video or a session's key, failed attempts included (test hooks). */
const received = async (service: RunningService, id: string) =>
  (await service.call('GET', `/__test__/received/${id}`)).body.bytes as number;

/**
 * Starts a PUT of `length` declared bytes and sends 64 KiB: true once the storage takes its bytes (the body then
 * goes nowhere: the request is dropped), false when it answers instead (507).
 */
async function takes(service: RunningService, url: string, id: string, length: number): Promise<boolean> {
  const before = await received(service, id);
  const body = openPut(url, length);
  await body.send(64 * 1024);
  const taken = await until('an answer, or the body taken', async () =>
    body.answered() ? false : (await received(service, id)) > before ? true : undefined,
  );
  body.req.destroy();
  return taken;
}

async function link(service: RunningService, token: string): Promise<{ id: string; url: string }> {
  const { body: video } = await service.call('POST', '/videos', { token });
  const { status, body } = await service.call('POST', `/videos/${video._id}/uploads`, { token });
  assert.equal(status, 200, JSON.stringify(body));
  return { id: video._id, url: body.url };
}

describe('the disk reserve holds for bytes in flight', () => {
  let service: RunningService;
  let reserve: number;
  let token: string;
  before(async () => {
    ({ service, reserve } = await startNearFull(['--allow-private-network', '--import-max-mb', '2048']));
    token = await service.token('acme');
  });
  after(() => service.stop());

  it('of two PUTs that fit one at a time but not together, the second gets 507 while the first is in flight', async () => {
    const a = await link(service, token);
    const b = await link(service, token);
    const size = 600 * MiB;
    const first = openPut(a.url, size);
    await first.send(64 * 1024);
    await until('the first body to be taken', async () => ((await received(service, a.id)) > 0 ? true : undefined));

    const second = await openPut(b.url, size).answer;
    assert.equal(second.status, 507);
    assert.equal(second.body.error.code, 'insufficient_storage');
    assert.match(second.body.error.message, /reserve free \(--min-free-mb\)/);
    assert.equal(await received(service, b.id), 0, 'the second body was refused before its first byte');

    // The first gives up: its hold goes, and the same body fits again.
    first.req.destroy();
    await until('the second body to fit once the first is gone', async () =>
      (await takes(service, b.url, b.id, size)) ? true : undefined,
    );
  });

  it('counts a body without a length (chunked) as the largest allowed, 5 GiB', async () => {
    const { url } = await link(service, token);
    const chunked = openPut(url, undefined);
    await chunked.send(MiB);
    const refused = await chunked.answer;
    assert.equal(refused.status, 507, 'a chunked body counts as 5 GiB, more than the room left');
    assert.equal(refused.body.error.code, 'insufficient_storage');
    assert.equal((await put(url, randomBytes(MiB))).status, 200, 'the same bytes with their length fit');
  });

  it('cuts a body with 507 when the volume fills while it arrives, and keeps the chunks accepted before', async () => {
    const { body: video } = await service.call('POST', '/videos', { token });
    const { body: session } = await service.call('POST', `/videos/${video._id}/multipart-upload/begin`, { token });
    const chunkUrl = async (chunkId: number) =>
      (
        await service.call('POST', '/videos/multipart-upload/get-chunk-upload-url', {
          token,
          body: { key: session.key, chunkId },
        })
      ).body.url as string;
    const one = randomBytes(MiB);
    const first = await put(await chunkUrl(1), one);
    assert.equal(first.status, 200);

    const second = openPut(await chunkUrl(2), 256 * MiB);
    await second.send(8 * MiB);
    await until('8 MiB of the second chunk to be taken', async () =>
      (await received(service, session.key)) >= 9 * MiB ? true : undefined,
    );
    // Free space at the reserve: the 248 MiB this body may still write no longer fit.
    const unfill = await fillPastReserve(service.data, reserve, 0);
    try {
      await second.send(248 * MiB);
      // The answer, or, when the connection closed under the writer before the client read it, the storage's log.
      const status = await until('the storage to answer the second chunk', async () =>
        second.answered() ? (await second.answer).status : await loggedStatus(service, second.path),
      );
      assert.equal(status, 507, 'the meter looked again at the free space and stopped the body');
      assert.ok((await received(service, session.key)) < 256 * MiB, 'cut before the end of the body');
    } finally {
      await unfill();
    }

    const two = randomBytes(MiB);
    const again = await put(await chunkUrl(2), two);
    assert.equal(again.status, 200);
    const done = await completeMultipart(service, token, session.key, [first.etag, again.etag]);
    assert.equal(done.status, 200, JSON.stringify(done.body));
    const whole = join(await tempDir('whole-'), 'whole');
    await writeFile(whole, Buffer.concat([one, two]));
    assert.equal(await storedSha256(service.data, video._id), await sha256(whole), 'chunk 1 was kept as it was');
  });

  it('counts an import without a length as the largest import allowed, and fails it saying the storage is full', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'video/mp4' }); // no Content-Length: chunked
      res.end(randomBytes(1024));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { body: video } = await service.call('POST', '/videos', { token });
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/clip.mp4`;
      const started = await service.call('POST', `/videos/${video._id}/import`, { token, body: { url } });
      assert.equal(started.status, 202, JSON.stringify(started.body));
      const failed = await waitForVideo(service, token, video._id);
      assert.equal(failed.status, 'failed');
      assert.match(failed.failure_reason, /^The import failed: The storage is too full/);
    } finally {
      server.close();
    }
  });

  it('ends a publish cleanly when the volume falls below the reserve, keeping what was recorded', async () => {
    const stream = await createStream(service, token);
    const pushed = push(stream.ingest.url, 60);
    await stream.waitFor('the recording to have media', (r) => r.duration >= 2);
    const unfill = await fillPastReserve(service.data, reserve, 256 * MiB);
    try {
      // The recorder looks every 2 s; the publisher would go on for a minute.
      const code = await Promise.race([pushed, new Promise((r) => setTimeout(() => r('still publishing'), 30_000))]);
      assert.notEqual(code, 'still publishing', 'the publish was ended below the reserve');
      assert.notEqual(code, 0, 'the publisher was cut, not left to finish');
    } finally {
      await unfill();
    }
    const stopped = await stream.waitFor('the recording to stop', (r) => r.status === 'stopped');
    assert.ok(stopped.duration >= 2, `what was recorded stays: ${stopped.duration} s`);
    const part = await readFile(join(service.data, 'recordings', stopped._id, 'part1', 'stream.m3u8'), 'utf8');
    assert.match(part, /#EXT-X-ENDLIST/, 'the recorder finished its part: the last segment is whole');
  });
});

describe('processing below the disk reserve', () => {
  it('waits instead of failing an accepted upload, and processes it once there is room', async () => {
    const data = await tempData();
    const first = await startService({ data });
    const token = await first.token('acme');
    const id = await upload(first, token, await media('h264-aac-320p-4s.mp4'));
    // Stopped as the upload is accepted, before its processing can end; the job runs again at the next start.
    await first.kill();

    await fullThenRoomy(
      data,
      async (full) => {
        await full.idle();
        const waiting = (await full.call('GET', `/videos/${id}`, { token })).body;
        assert.equal(waiting.status, 'processing', 'the accepted upload waits for room');
        assert.equal(waiting.failure_reason, null);
      },
      async (roomy) => {
        await roomy.advanceClock(60_000);
        const ready = await waitForVideo(roomy, token, id);
        assert.equal(ready.status, 'ready', ready.failure_reason);
      },
    );
  });

  it('completes a recording only once there is room for its MP4, losing nothing meanwhile', async () => {
    const data = await tempData();
    const first = await startService({ data });
    const token = await first.token('acme');
    const stream = await createStream(first, token);
    assert.equal(await push(stream.ingest.url, 4), 0);
    const [stopped] = await stream.list();
    await first.stop();

    const recording = (service: RunningService) => recordingsOf(service, token, stream._id);
    await fullThenRoomy(
      data,
      async (full) => {
        // Past the merge window: the sweeper hands the recording to the job that makes its MP4, which waits.
        await full.advanceClock(61_000);
        await full.sweep();
        await full.idle();
        const [waiting] = await recording(full).list();
        assert.equal(waiting.status, 'stopped', 'it waits for room to complete');
        assert.equal(waiting.duration, stopped.duration, 'and keeps what was recorded');
      },
      async (roomy) => {
        await roomy.advanceClock(180_000);
        const complete = await recording(roomy).waitFor('the recording to complete', (r) => r.status === 'complete');
        assert.ok(complete.duration >= 3, `the MP4 holds the recording: ${complete.duration} s`);
      },
    );
  });

  it('cuts an accepted conversion only once there is room, losing nothing meanwhile', async () => {
    const data = await tempData();
    const first = await startService({ data });
    const token = await first.token('acme');
    const stream = await createStream(first, token);
    assert.equal(await push(stream.ingest.url, 6, { realTime: false }), 0);
    await first.advanceClock(61_000);
    await first.sweep();
    const recording = await stream.waitFor('the recording to complete', (r) => r.status === 'complete');
    const accepted = await stream.convert(recording._id, { from: recording.start_time, duration: 4 });
    assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
    // Stopped as the conversion is accepted, before its cut can end; the job runs again at the next start.
    await first.kill();

    const entry = async (service: RunningService) =>
      (await recordingsOf(service, token, stream._id).list())[0].export_data[0];
    await fullThenRoomy(
      data,
      async (full) => {
        // The first service's clock was moved past the merge window, and the job is due on it.
        await full.advanceClock(120_000);
        await full.idle();
        assert.equal((await entry(full)).status, 'PROCESSING', 'the accepted conversion waits for room');
        const [video] = (await full.call('GET', `/live_streams/${stream._id}/recordings`, { token })).body as any[];
        assert.equal(existsSync(join(data, 'videos', video._id, 'source')), false, 'and cuts nothing meanwhile');
      },
      async (roomy) => {
        await roomy.advanceClock(240_000);
        const done = await until('the conversion to be exported', async () => {
          const e = await entry(roomy);
          return e.status === 'PROCESSING' ? undefined : e;
        });
        assert.equal(done.status, 'EXPORTED');
      },
    );
  });
});

describe('the storage quota of an organization', () => {
  let service: RunningService;
  before(async () => (service = await startService({ args: ['--storage-quota-mb', '1', '--allow-private-network'] })));
  after(() => service.stop());

  it('refuses new bytes past the quota with 403 naming the organization’s quota, set by default or by plan', async () => {
    const token = await service.token('small');
    const a = await link(service, token);
    const over = await put(a.url, randomBytes(2 * MiB));
    assert.equal(over.status, 403, 'the default quota (--storage-quota-mb 1) is smaller than the body');
    const error = JSON.parse(over.text).error;
    assert.equal(error.code, 'storage_quota_exceeded');
    assert.match(error.message, /organization's storage quota/);
    assert.match(error.message, /plan --quota-bytes/);
    assert.match(error.message, /not the service's disk/);
    assert.equal((await put(a.url, randomBytes(MiB / 2))).status, 200, 'within the quota');

    const b = await link(service, token);
    const past = await put(b.url, randomBytes(629_145));
    assert.equal(past.status, 403, 'what is stored and the body together pass the quota');
    assert.match(JSON.parse(past.text).error.message, /stores 524288 of its 1048576 bytes/);

    await service.cli('plan', '--org', 'small', '--quota-bytes', '100000');
    const { body: video } = await service.call('POST', '/videos', { token });
    for (const path of [`/videos/${video._id}/uploads`, `/videos/${video._id}/multipart-upload/begin`]) {
      const r = await service.call('POST', path, { token });
      assert.equal(r.status, 403, path);
      assert.equal(r.body.error.code, 'storage_quota_exceeded', path);
    }

    const plan = await service.cli('plan', '--org', 'small', '--quota-bytes', 'unlimited');
    assert.match(plan, /storage quota unlimited/);
    assert.equal((await put(b.url, randomBytes(2 * MiB))).status, 200);
  });

  it('holds an import to the quota too, on its declared length', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(2 * MiB) });
      res.end(randomBytes(2 * MiB));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const token = await service.token('importer');
      const { body: video } = await service.call('POST', '/videos', { token });
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/big.mp4`;
      const started = await service.call('POST', `/videos/${video._id}/import`, { token, body: { url } });
      assert.equal(started.status, 202, JSON.stringify(started.body));
      const failed = await waitForVideo(service, token, video._id);
      assert.equal(failed.status, 'failed');
      assert.match(failed.failure_reason, /organization's storage quota/);
    } finally {
      server.close();
    }
  });

  it('is the organization’s own: another organization stores its bytes', async () => {
    const token = await service.token('roomy');
    await service.cli('plan', '--org', 'roomy', '--quota-bytes', String(10 * MiB));
    const { url } = await link(service, token);
    assert.equal((await put(url, randomBytes(2 * MiB))).status, 200);
  });
});
