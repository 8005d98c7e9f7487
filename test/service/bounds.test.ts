import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { after, before, describe, it } from 'node:test';
import type { Db } from '../../service/db/index.js';
import { push } from '../helpers/live.js';
import { media } from '../helpers/media.js';
import { Receiver } from '../helpers/receiver.js';
import {
  LOCAL_RECEIVERS,
  processTree,
  put,
  serviceDatabase,
  SERVICE_ENGINE,
  startService,
  startWithToken,
  until,
  upload,
  waitForVideo,
  type RunningService,
} from '../helpers/service.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * How the database would answer `query`, one line per step; whether a step reads `index`, and whether one reads a
 * whole table. PostgreSQL is asked with sequential scans turned off: on a test's few rows it rightly prefers reading
 * the table, so only with them off does its plan say whether an index answers the query (what grows in production).
 * Among indexes that all answer it, an empty table gives its planner no reason to prefer the one named (it took
 * videos_end_user, whose first column and a later one fit, for videos_status's query): there, any index counts.
 * The queries are written in SQLite's SQL; PostgreSQL's `IS` takes only NULL and its CROSS JOIN no ON, so they
 * become `=` and JOIN there, as the service's own statements are (Kysely writes `=` for a value).
 */
async function queryPlan(db: Db, query: string, index: string) {
  if (SERVICE_ENGINE === 'sqlite') {
    const { rows } = await sql.raw<{ detail: string }>(`EXPLAIN QUERY PLAN ${query}`).execute(db);
    const steps = rows.map((r) => r.detail);
    return {
      steps,
      usesIndex: steps.some((d) => d.includes(` INDEX ${index} `)),
      scans: steps.some((d) => /^SCAN /.test(d)),
    };
  }
  const postgresQuery = query.replace(/ IS '/g, " = '").replace(/ CROSS JOIN /g, ' JOIN ');
  const rows = await db.transaction().execute(async (trx) => {
    await sql`SET LOCAL enable_seqscan = off`.execute(trx);
    return (await sql.raw<{ 'QUERY PLAN': string }>(`EXPLAIN ${postgresQuery}`).execute(trx)).rows;
  });
  const steps = rows.map((r) => r['QUERY PLAN']);
  return {
    steps,
    usesIndex: steps.some((d) => /(Index Scan using|Index Only Scan using|Bitmap Index Scan on) /.test(d)),
    scans: steps.some((d) => d.includes('Seq Scan')),
  };
}

/** A 429 of the one error shape, with a Retry-After of whole seconds within `[min, max]`, naming `flag`. */
function assertRefused(r: { status: number; body: any; headers: Headers }, code: string, flag: string, max: number) {
  assert.equal(r.status, 429, JSON.stringify(r.body));
  assert.deepEqual(Object.keys(r.body.error).sort(), ['code', 'message', 'status']);
  assert.equal(r.body.error.status, 429);
  assert.equal(r.body.error.code, code);
  assert.ok(r.body.error.message.includes(flag), r.body.error.message);
  const after = Number(r.headers.get('retry-after'));
  assert.ok(Number.isInteger(after) && after >= 1 && after <= max, `Retry-After ${r.headers.get('retry-after')}`);
}

describe('conversions (#10) are bounded', () => {
  let service: RunningService;
  let key: string;
  let stream: any;
  let recording: any;
  const clip = async () =>
    (await service.call('POST', '/tokens', { token: key, body: { scope: 'clip', live_stream_id: stream._id } })).body
      .token as string;
  const convert = (token: string, body?: unknown) =>
    service.call('POST', `/live_streams/${stream._id}/temporary_recordings/${recording._id}`, { token, body });
  const part = (startSecond: number, duration = 4) => ({
    from: new Date(Date.parse(recording.start_time) + startSecond * 1000).toISOString(),
    duration,
  });
  const recordings = async () =>
    (await service.call('GET', `/live_streams/${stream._id}/temporary_recordings`, { token: key })).body as any[];
  const converted = async () =>
    ((await service.call('GET', `/live_streams/${stream._id}/recordings`, { token: key })).body as any[]).length;
  const settled = () =>
    until(
      'every conversion to settle',
      async () => ((await recordings())[0].export_data.every((e: any) => e.status !== 'PROCESSING') ? true : undefined),
      180_000,
    );

  before(async () => {
    ({ service, token: key } = await startWithToken('acme'));
    stream = (await service.call('POST', '/live_streams', { token: key, body: { name: 'bounded' } })).body;
    // Ten seconds of 720p, pushed as fast as ffmpeg makes it; complete once the merge window has passed.
    assert.equal(await push(stream.ingest.url, 10, { realTime: false, size: '1280x720' }), 0);
    await until('the publish to stop', async () => ((await recordings())[0]?.status === 'stopped' ? true : undefined));
    await service.advanceClock(MINUTE + 1_000);
    await service.sweep();
    recording = await until('the recording to be complete', async () => {
      const r = (await recordings())[0];
      return r.status === 'complete' ? r : undefined;
    });
    assert.ok(recording.duration >= 9, `recorded ${recording.duration} s`);
  });
  after(() => service.stop());

  it('caps conversions under way per token and per stream (429 limit_reached), and answers the same part again with its entry', async () => {
    const [a, b] = [await clip(), await clip()];
    const made = await converted();
    // Each organization's conversions run one at a time, each a few seconds: the first is still under way below.
    const first = await convert(a, part(0));
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal((await convert(a, part(1))).status, 200);
    // The same from and duration: the entry already made, no new video.
    const again = await convert(a, part(0));
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, first.body);
    assertRefused(await convert(a, part(2)), 'limit_reached', '--max-conversions-per-token', 60);
    // Another token of the same stream has its own two; the stream as a whole has four.
    assert.equal((await convert(b, part(3))).status, 200);
    assert.equal((await convert(b, part(4))).status, 200);
    assertRefused(await convert(key, part(5)), 'limit_reached', '--max-conversions-per-stream', 60);
    assert.equal(await converted(), made + 4, 'a refused or repeated conversion makes no video');

    await settled();
    const entries = (await recordings())[0].export_data as any[];
    assert.deepEqual(
      entries.map((e) => e.status),
      ['EXPORTED', 'EXPORTED', 'EXPORTED', 'EXPORTED'],
    );
    // Exported: the same part is still the same entry, as #9 lists it (without video_id, as any #10 answer).
    const done = await convert(a, part(0));
    assert.equal(done.status, 200);
    const { video_id, ...listed } = entries.find((e) => e.from === part(0).from);
    assert.match(video_id, /^[0-9a-f]{24}$/);
    assert.deepEqual(done.body, listed);
    assert.equal(await converted(), made + 4);
    // Done conversions free their places.
    assert.equal((await convert(a, part(2))).status, 200);
    await settled();
  });

  it('holds its caps against requests sent at once, and makes a part asked for at once only once', async () => {
    const [c, made] = [await clip(), await converted()];
    const answers = await Promise.all([0, 1, 2, 3, 4].map((i) => convert(c, part(i, 2))));
    assert.deepEqual(answers.map((r) => r.status).sort(), [200, 200, 429, 429, 429]);
    const d = await clip();
    const same = await Promise.all([1, 2, 3].map(() => convert(d, part(6, 3))));
    assert.deepEqual(
      same.map((r) => r.status),
      [200, 200, 200],
    );
    assert.deepEqual(same[1]!.body, same[0]!.body);
    assert.deepEqual(same[2]!.body, same[0]!.body);
    assert.equal(await converted(), made + 3);
    await settled();
  });

  it('cuts at a low CPU priority (nice 10)', async () => {
    const own = Number((await processTree(service.process.pid!))[0]!.stat[16]);
    assert.ok(own < 10, `the service runs at nice ${own}`);
    assert.equal((await convert(key, {})).status, 200);
    // The cut of the whole recording re-encodes 10 s of 720p (a second or more); its ffmpeg writes the new source.
    const nices: number[] = [];
    while (!nices.includes(10) && (await recordings())[0].export_data.some((e: any) => e.status === 'PROCESSING')) {
      for (const p of await processTree(service.process.pid!))
        if (p.cmdline.startsWith('ffmpeg') && p.cmdline.includes('source.mp4')) nices.push(Number(p.stat[16]));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.ok(nices.includes(10), `the cut ran at nice ${nices.join(', ')}`);
    await settled();
  });

  describe('restarted with tight limits', () => {
    const restart = async (args: string[]) => {
      await service.stop();
      service = await startService({ data: service.data, args });
    };

    it('refuses a conversion longer than --max-duration-seconds with 400, and stops a cut that runs past its time', async () => {
      await restart([
        '--max-duration-seconds',
        '5',
        '--processing-base-seconds',
        '0.01',
        '--processing-seconds-per-media-second',
        '0.001',
      ]);
      const made = await converted();
      const whole = await convert(key, {});
      assert.equal(whole.status, 400);
      assert.match(whole.body.error.message, /up to 5 s long \(--max-duration-seconds\).*this one is \d+/);
      const long = await convert(key, part(1, 6));
      assert.equal(long.status, 400);
      assert.equal(long.body.error.field, 'duration');
      assert.equal(await converted(), made, 'no video for a refused conversion');

      // 4 s may take 0.014 s to cut here: ffmpeg is stopped and the video fails, saying why.
      assert.equal((await convert(key, part(5, 4))).status, 200);
      await settled();
      const entry = (await recordings())[0].export_data.find((e: any) => e.from === part(5).from && e.duration === 4);
      assert.equal(entry.status, 'FAILED');
      const video = (await service.call('GET', `/videos/${entry.video_id}`, { token: key })).body;
      assert.equal(video.status, 'failed');
      assert.match(video.failure_reason, /^Cutting took longer than the .* allowed for 4 s of media/);
      assert.match(video.failure_reason, /--processing-base-seconds/);
    });

    it('refuses a conversion that would leave less than the reserve free with 507, before cutting', async () => {
      // A reserve larger than any disk: every conversion would leave less free than that.
      await restart(['--min-free-mb', String(1024 ** 3)]);
      const made = await converted();
      const refused = await convert(key, part(6, 2));
      assert.equal(refused.status, 507);
      assert.equal(refused.body.error.code, 'insufficient_storage');
      assert.match(refused.body.error.message, /needs about \d+ MiB.*--min-free-mb/);
      assert.equal(await converted(), made, 'no video for a refused conversion');
    });
  });
});

describe('open uploads per end user and per organization', () => {
  let service: RunningService;
  let key: string;
  const userToken = async (user: string) =>
    (await service.call('POST', '/tokens', { token: key, body: { user, ttl_seconds: DAY / 1000 } })).body
      .token as string;
  const video = (token: string) => service.call('POST', '/videos', { token });

  before(async () => {
    ({ service, token: key } = await startWithToken('acme', {
      args: ['--max-open-uploads-per-user', '2', '--max-open-uploads-per-organization', '3'],
    }));
  });
  after(() => service.stop());

  it('caps videos waiting for their file; an upload or a day frees a place', async () => {
    const [alice, bob] = [await userToken('alice'), await userToken('bob')];
    const first = (await video(alice)).body._id as string;
    assert.equal((await video(alice)).status, 200);
    const full = await video(alice);
    assertRefused(full, 'limit_reached', '--max-open-uploads-per-user', DAY / 1000);
    assert.match(full.body.error.message, /This end user has 2 videos waiting for their file/);
    assert.ok(Number(full.headers.get('retry-after')) > DAY / 1000 - 60, 'the oldest stops counting in a day');
    // Another user has places of their own, until the organization is full, whoever asks.
    assert.equal((await video(bob)).status, 200);
    assertRefused(await video(bob), 'limit_reached', '--max-open-uploads-per-organization', DAY / 1000);
    assertRefused(await video(key), 'limit_reached', '--max-open-uploads-per-organization', DAY / 1000);

    // A video that has its file no longer waits.
    const { body: link } = await service.call('POST', `/videos/${first}/uploads`, { token: alice });
    assert.equal((await put(link.url, new Uint8Array(1_000))).status, 200);
    assert.equal((await video(alice)).status, 200);
    // Abandoned videos stop counting a day after they were made.
    assertRefused(await video(alice), 'limit_reached', '--max-open-uploads-per-user', DAY / 1000);
    await service.advanceClock(DAY);
    assert.equal((await video(await userToken('alice'))).status, 200);
  });

  it('caps signed links not expired and sessions open; expiry, an upload or an abort frees a place', async () => {
    const carol = await userToken('carol');
    const [v1, v2] = [(await video(carol)).body._id, (await video(carol)).body._id];
    const link = (id: string) => service.call('POST', `/videos/${id}/uploads`, { token: carol });
    const begin = (id: string) => service.call('POST', `/videos/${id}/multipart-upload/begin`, { token: carol });

    const l1 = (await link(v1)).body.url as string;
    assert.equal((await link(v2)).status, 200);
    const noLink = await link(v2);
    assertRefused(noLink, 'limit_reached', '--max-open-uploads-per-user', 6 * 3600);
    assert.match(noLink.body.error.message, /2 signed links not expired/);
    // v1 takes its file: its link stops counting (and a second PUT to it is still a 409).
    assert.equal((await put(l1, new Uint8Array(1_000))).status, 200);
    assert.equal((await put(l1, new Uint8Array(1_000))).status, 409);
    assert.equal((await link(v2)).status, 200);

    const s1 = (await begin(v2)).body.key as string;
    assert.equal((await begin(v2)).status, 200);
    const noSession = await begin(v2);
    assertRefused(noSession, 'limit_reached', '--max-open-uploads-per-user', 6 * 3600);
    assert.match(noSession.body.error.message, /2 multipart sessions open/);
    await service.call('POST', '/videos/multipart-upload/abort', { token: carol, body: { key: s1 } });
    assert.equal((await begin(v2)).status, 200);

    // Six hours on, every link and session has expired.
    await service.advanceClock(6 * HOUR + MINUTE);
    assert.equal((await link(v2)).status, 200);
    assert.equal((await begin(v2)).status, 200);
  });
});

describe('requests a minute per token', () => {
  let service: RunningService;
  let key: string;
  before(async () => {
    ({ service, token: key } = await startWithToken('acme', {
      args: ['--rate-limit-per-minute', '5', '--chunk-url-rate-limit-per-minute', '8'],
    }));
  });
  after(() => service.stop());

  it('answers 429 rate_limited past the budget of a token, in the one error shape; other tokens are served', async () => {
    for (let i = 0; i < 5; i++) assert.equal((await service.call('GET', '/live_streams', { token: key })).status, 200);
    const limited = await service.call('GET', '/live_streams', { token: key });
    assertRefused(limited, 'rate_limited', '--rate-limit-per-minute', 60);
    assert.equal(limited.headers.get('access-control-allow-origin'), '*', 'a page can read the 429');
    assert.equal((await service.call('POST', '/videos', { token: key })).status, 429);

    const other = await service.token('other');
    assert.equal((await service.call('GET', '/live_streams', { token: other })).status, 200);
    // Without a token, by address: 401 within the budget, then 429.
    for (let i = 0; i < 5; i++) assert.equal((await service.call('GET', '/live_streams', { token: null })).status, 401);
    assertRefused(await service.call('GET', '/live_streams', { token: null }), 'rate_limited', '--rate-limit', 60);
  });

  it('leaves public playback and the test hooks alone, and gives #4 a budget of its own', async () => {
    for (let i = 0; i < 12; i++) {
      assert.equal((await service.call('GET', '/openapi.json')).status, 200);
      assert.equal((await service.call('GET', `/media/${'0'.repeat(24)}/index.m3u8`)).status, 404);
      await service.advanceClock(1);
    }
    const token = await service.token('chunky');
    const { body: video } = await service.call('POST', '/videos', { token });
    const { body: session } = await service.call('POST', `/videos/${video._id}/multipart-upload/begin`, { token });
    const chunkUrl = (chunkId: number) =>
      service.call('POST', '/videos/multipart-upload/get-chunk-upload-url', {
        token,
        body: { key: session.key, chunkId },
      });
    for (let i = 1; i <= 8; i++) assert.equal((await chunkUrl(i)).status, 200);
    assertRefused(await chunkUrl(9), 'rate_limited', '--chunk-url-rate-limit-per-minute', 60);
    // The chunk URLs did not spend the token's other budget: 2 of 5 are used.
    for (let i = 0; i < 3; i++)
      assert.equal((await service.call('GET', `/videos/${video._id}`, { token })).status, 200);
    assert.equal((await service.call('GET', `/videos/${video._id}`, { token })).status, 429);
  });
});

describe('indexes and pruning', () => {
  let service: RunningService;
  let key: string;
  let receiver: Receiver;
  before(async () => {
    receiver = await new Receiver().listen();
    ({ service, token: key } = await startWithToken('acme', LOCAL_RECEIVERS));
  });
  after(async () => {
    await service.stop();
    await receiver.close();
  });

  it('answers every query of the sweeper, #11, the quota, the caps and the pruning from an index', async () => {
    // Each query as the service makes it, and the index that answers it (a prefix of it would scan what grows).
    const queries: [string, string][] = [
      ['upload_sessions_due', `SELECT key FROM upload_sessions WHERE state = 'open' AND expires_at < 1`],
      ['videos_stream', `SELECT * FROM videos WHERE live_stream_id = 'x' ORDER BY created_at, id`],
      ['videos_status', `SELECT SUM(duration) FROM videos WHERE organization_id = 'o' AND status = 'ready'`],
      [
        'videos_status',
        `SELECT COUNT(*), MIN(created_at) FROM videos WHERE organization_id = 'o' AND status = 'waiting' AND created_at > 1`,
      ],
      [
        'videos_end_user',
        `SELECT COUNT(*) FROM videos WHERE organization_id = 'o' AND end_user IS 'u' AND status = 'waiting' AND created_at > 1`,
      ],
      [
        'upload_links_owner',
        `SELECT COUNT(*) FROM upload_links WHERE organization_id = 'o' AND end_user IS 'u' AND closed_at IS NULL AND expires_at > 1`,
      ],
      [
        'upload_sessions_organization',
        `SELECT COUNT(*) FROM upload_sessions WHERE organization_id = 'o' AND state = 'open' AND expires_at > 1`,
      ],
      [
        'upload_sessions_owner',
        `SELECT COUNT(*) FROM upload_sessions WHERE organization_id = 'o' AND end_user IS 'u' AND state = 'open' AND expires_at > 1`,
      ],
      ['upload_sessions_video', `SELECT key FROM upload_sessions WHERE video_id = 'v' AND state = 'completed'`],
      ['exports_token', `SELECT COUNT(*) FROM exports WHERE token_hash = 't' AND status = 'PROCESSING'`],
      ['exports_stream', `SELECT COUNT(*) FROM exports WHERE live_stream_id = 's' AND status = 'PROCESSING'`],
      ['exports_recording', `SELECT * FROM exports WHERE recording_id = 'r' AND from_at = 1 AND duration = 1`],
      ['exports_status', `UPDATE exports SET status = 'FAILED' WHERE video_id = 'v' AND status = 'PROCESSING'`],
      ['exports_video', `DELETE FROM exports WHERE video_id = 'v'`],
      [
        'exports_status',
        `SELECT SUM(e.duration) FROM exports e CROSS JOIN videos v ON v.id = e.video_id
         WHERE v.organization_id = 'o' AND e.status = 'PROCESSING'`,
      ],
      ['tokens_parent', `SELECT hash FROM tokens WHERE parent_hash = 'p'`],
      ['tokens_revoked', `DELETE FROM tokens WHERE parent_hash IS NOT NULL AND (expires_at < 1 OR revoked_at < 1)`],
      ['jobs_finished', `DELETE FROM jobs WHERE state IN ('done', 'failed') AND updated_at < 1`],
      ['webhook_deliveries_created', `DELETE FROM webhook_deliveries WHERE created_at < 1`],
      ['upload_links_expiry', `DELETE FROM upload_links WHERE expires_at < 1`],
      ['recordings_state', `SELECT id FROM recordings WHERE state = 'stopped' AND stopped_at < 1`],
      ['recordings_retention', `SELECT id FROM recordings WHERE state = 'complete' AND end_at <= 1`],
    ];
    const db = await serviceDatabase(service);
    try {
      for (const [index, query] of queries) {
        const plan = await queryPlan(db, query, index);
        assert.ok(plan.usesIndex && !plan.scans, `${query}\n  ${plan.steps.join('\n  ')}`);
      }
    } finally {
      await db.destroy();
    }
  });

  it('prunes minted tokens two days after expiry or revocation (never keys), links once expired, jobs after 7 days, deliveries after 30', async () => {
    const mint = async () => (await service.call('POST', '/tokens', { token: key, body: {} })).body.token as string;
    const revokedKey = await service.token('acme');
    const [expiring, revoked] = [await mint(), await mint()];
    await service.revoke(revoked);
    await service.revoke(revokedKey);
    assert.equal((await service.call('POST', '/webhooks', { token: key, body: { url: receiver.url } })).status, 200);
    const id = await upload(service, key, await media('h264-aac-320p-4s.mp4'));
    assert.equal((await waitForVideo(service, key, id)).status, 'ready');
    await until('the delivery', async () => (receiver.received.length > 0 ? true : undefined));
    await service.idle();
    const count = async () => {
      const db = await serviceDatabase(service);
      try {
        const rows = (table: 'tokens' | 'upload_links' | 'jobs' | 'webhook_deliveries') =>
          db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
            .then((r) => r.n);
        return {
          tokens: await rows('tokens'),
          links: await rows('upload_links'),
          jobs: await rows('jobs'),
          deliveries: await rows('webhook_deliveries'),
        };
      } finally {
        await db.destroy();
      }
    };
    const start = await count();
    assert.deepEqual(start, { tokens: 4, links: 1, jobs: 2, deliveries: 1 });

    // The link expired at 6 h; the minted tokens are not two days past their end yet (the one that expires, an hour).
    await service.advanceClock(2 * DAY - HOUR);
    await service.sweep();
    assert.deepEqual(await count(), { ...start, links: 0 });
    await service.advanceClock(3 * HOUR);
    await service.sweep();
    assert.deepEqual(await count(), { ...start, links: 0, tokens: 2 });
    assert.equal((await service.call('GET', '/live_streams', { token: key })).status, 200, 'the key still works');
    assert.equal((await service.call('GET', '/live_streams', { token: revokedKey })).status, 401);
    assert.equal((await service.call('GET', '/live_streams', { token: expiring })).status, 401);

    await service.advanceClock(5 * DAY - 3 * HOUR);
    await service.sweep();
    assert.equal((await count()).jobs, 2, 'a job is kept for 7 days');
    await service.advanceClock(2 * HOUR);
    await service.sweep();
    assert.deepEqual(await count(), { ...start, links: 0, tokens: 2, jobs: 0 });

    await service.advanceClock(23 * DAY - 2 * HOUR);
    await service.sweep();
    assert.equal((await count()).deliveries, 1, 'a delivery is kept for 30 days');
    await service.advanceClock(2 * HOUR);
    await service.sweep();
    assert.deepEqual(await count(), { tokens: 2, links: 0, jobs: 0, deliveries: 0 });
  });
});
