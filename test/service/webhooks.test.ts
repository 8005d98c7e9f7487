import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { AUDIO_FIELDS, GENERAL_FIELDS, VIDEO_FIELDS } from '../../src/api/mediainfo-fields.js';
import { media } from '../helpers/media.js';
import { Receiver, type Received } from '../helpers/receiver.js';
import {
  LOCAL_RECEIVERS,
  serviceDatabase,
  startService,
  startWithToken,
  until,
  upload,
  waitForVideo,
  type RunningService,
} from '../helpers/service.js';

const HOUR = 3_600_000;
const FIELDS = { General: GENERAL_FIELDS, Video: VIDEO_FIELDS, Audio: AUDIO_FIELDS } as const;

/** The Standard Webhooks signature the receiver should have got for this delivery, made by the reference package. */
function expectedSignature(secret: string, got: Received): string {
  const timestamp = new Date(Number(got.headers['webhook-timestamp']) * 1000);
  return new Webhook(secret).sign(String(got.headers['webhook-id']), timestamp, got.body);
}

/**
 * Moves the service clock to 30 s before a retry wait is over and checks (after 1 s of real time, for a job
 * runner that looks every 250 ms) that nothing came early; then past the end of the wait.
 */
async function notBefore(service: RunningService, wait: number, nothingYet: () => unknown): Promise<void> {
  await service.advanceClock(wait - 30_000);
  await new Promise((r) => setTimeout(r, 1_000));
  await nothingYet(); // "came before its wait was over"
  await service.advanceClock(30_000);
}

describe('webhooks: registration and video-ready', () => {
  let service: RunningService;
  let token: string;
  before(async () => ({ service, token } = await startWithToken('acme', LOCAL_RECEIVERS)));
  after(() => service.stop());

  it('registers, lists (without the secret) and deletes webhooks; bad bodies name the field', async () => {
    for (const [body, field] of [
      [{}, 'url'],
      [{ url: 'not a url' }, 'url'],
      [{ url: 'ftp://127.0.0.1/hook' }, 'url'],
      [{ url: 'http://127.0.0.1/hook', events: [] }, 'events'],
      [{ url: 'http://127.0.0.1/hook', events: ['video-deleted'] }, 'events'],
      [{ url: 'http://127.0.0.1/hook', events: 'video-ready' }, 'events'],
    ] as const) {
      const r = await service.call('POST', '/webhooks', { token, body });
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.body.error.field, field, r.body.error.message);
    }
    const created = await service.call('POST', '/webhooks', { token, body: { url: 'http://127.0.0.1:9/hook' } });
    assert.equal(created.status, 200);
    assert.match(created.body.secret, /^whsec_[A-Za-z0-9+/]{32}$/);
    assert.deepEqual(created.body.events, ['video-ready']);
    const listed = (await service.call('GET', '/webhooks', { token })).body;
    assert.deepEqual(listed, [
      {
        _id: created.body._id,
        url: 'http://127.0.0.1:9/hook',
        events: ['video-ready'],
        creation_time: created.body.creation_time,
      },
    ]);
    assert.deepEqual((await service.call('GET', '/webhooks', { token: await service.token('other') })).body, []);
    assert.equal((await service.call('DELETE', `/webhooks/${created.body._id}`, { token })).status, 200);
    assert.equal((await service.call('DELETE', `/webhooks/${created.body._id}`, { token })).status, 404);
    assert.deepEqual((await service.call('GET', '/webhooks', { token })).body, []);
  });

  it('signs video-ready (Standard Webhooks); a receiver that fails twice gets the third delivery, same id', async () => {
    const receiver = await new Receiver([500, 500, 200]).listen();
    try {
      const { body: hook } = await service.call('POST', '/webhooks', {
        token,
        body: { url: receiver.url, events: ['video-ready'] },
      });
      const id = await upload(service, token, await media('h264-aac-320p-4s.mp4'));
      assert.equal((await waitForVideo(service, token, id)).status, 'ready');
      await until('the first delivery', async () => (receiver.received.length >= 1 ? true : undefined));
      // The first wait, 5 s, runs on the real clock; the second, 5 min, is moved through.
      await until('the second delivery', async () => (receiver.received.length >= 2 ? true : undefined));
      await notBefore(service, 5 * 60_000, () => assert.equal(receiver.received.length, 2, 'the third attempt'));
      await until('the third delivery', async () => (receiver.received.length >= 3 ? true : undefined));
      // Each gap on the service clock (whole seconds), bounded on both sides: the wait of the schedule
      // (domain/webhooks.ts; written here again, as a test that read it could not see it change), less the
      // second lost to rounding, at least; at most that wait and 15 s, for the job runner's 250 ms look, one
      // local request, this test's 1 s look and a busy machine.
      const at = receiver.received.map((r) => Number(r.headers['webhook-timestamp']));
      for (const [i, wait] of [5, 5 * 60].entries()) {
        const gap = at[i + 1]! - at[i]!;
        assert.ok(
          gap >= wait - 1 && gap <= wait + 15,
          `attempt ${i + 2} came ${gap} s after attempt ${i + 1}; the schedule says ${wait} s`,
        );
      }
      // Delivered: nothing more comes, however long we wait. After a day, every job due has run.
      await service.advanceClock(24 * HOUR);
      await service.idle();
      assert.equal(receiver.received.length, 3);

      const [first] = receiver.received;
      assert.match(String(first!.headers['webhook-id']), /^msg_/);
      assert.ok(
        receiver.received.every((r) => r.headers['webhook-id'] === first!.headers['webhook-id']),
        'one webhook-id for every attempt',
      );
      // The first attempt is verified as a receiver would (its timestamp is now); later ones ran on the moved clock.
      const envelope = new Webhook(hook.secret).verify(first!.body, first!.headers as Record<string, string>) as any;
      for (const got of receiver.received)
        assert.equal(got.headers['webhook-signature'], expectedSignature(hook.secret, got));
      assert.throws(() =>
        new Webhook(`whsec_${Buffer.alloc(24, 1).toString('base64')}`).verify(
          first!.body,
          first!.headers as Record<string, string>,
        ),
      );

      assert.equal(envelope.event, 'video-ready');
      assert.equal(envelope.payload._id, id);
      const { mediainfo } = envelope.payload;
      assert.match(mediainfo.duration, /^\d+\.\d{3}$/);
      assert.deepEqual(
        mediainfo.track.map((t: any) => t['@type']),
        ['General', 'Video', 'Audio'],
      );
      for (const track of mediainfo.track) {
        for (const field of FIELDS[track['@type'] as keyof typeof FIELDS]) {
          assert.equal(typeof track[field], 'string', `${track['@type']}.${field}`);
          assert.notEqual(track[field], '', `${track['@type']}.${field} is empty`);
        }
      }
      assert.equal(mediainfo.track[0].OverallBitRate_Mode, 'VBR');
    } finally {
      await receiver.close();
    }
  });
});

describe('webhooks: durable retries', () => {
  it('keeps a delivery through a crash and retries it for more than 24 hours of the clock', async () => {
    const receiver = new Receiver([200]);
    const port = (await receiver.listen()).port;
    await receiver.close(); // down: every attempt fails to connect
    const { service: first, token } = await startWithToken('acme', LOCAL_RECEIVERS);
    const { body: hook } = await first.call('POST', '/webhooks', { token, body: { url: receiver.url } });
    const id = await upload(first, token, await media('h264-aac-320p-4s.mp4'));
    await waitForVideo(first, token, id);
    const db = await serviceDatabase(first);
    const attempts = async () =>
      (await db.selectFrom('webhook_deliveries').select('attempts').executeTakeFirst())?.attempts ?? 0;
    await until('the first attempt', async () => ((await attempts()) >= 1 ? true : undefined));
    await first.kill();

    const service = await startService({ data: first.data, ...LOCAL_RECEIVERS });
    try {
      // The waits after attempts 1–6: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h (17.6 h in all); each attempt fails.
      // Each gap bounded on both sides: no attempt 30 s of the clock before its wait is over, one within until's
      // 30 s of real time after it.
      for (const [i, wait] of [5_000, 5 * 60_000, 30 * 60_000, 2 * HOUR, 5 * HOUR, 10 * HOUR].entries()) {
        if (wait > 30_000)
          await notBefore(service, wait, async () => assert.equal(await attempts(), i + 1, `attempt ${i + 2}`));
        else await service.advanceClock(wait);
        await until(`attempt ${i + 2}`, async () => ((await attempts()) >= i + 2 ? true : undefined));
      }
      await receiver.listen(port);
      await notBefore(service, 10 * HOUR, () => assert.equal(receiver.received.length, 0, 'the last attempt'));
      await until('the delivery', async () => (receiver.received.length >= 1 ? true : undefined));
      const got = receiver.received[0]!;
      assert.equal(JSON.parse(got.body).payload._id, id);
      assert.equal(got.headers['webhook-signature'], expectedSignature(hook.secret, got));
      // The service records the delivery once the receiver's answer is in.
      const row = await until('the delivery to be recorded', async () => {
        const r = await db
          .selectFrom('webhook_deliveries')
          .select(['state', 'attempts', 'created_at'])
          .executeTakeFirstOrThrow();
        return r.state === 'pending' ? undefined : r;
      });
      assert.deepEqual([row.state, row.attempts], ['delivered', 8]);
      assert.ok(
        Number(got.headers['webhook-timestamp']) * 1000 - row.created_at >= 24 * HOUR,
        'the last try came more than a day after the first',
      );
    } finally {
      await db.destroy();
      await service.stop();
      await receiver.close();
    }
  });
});

describe('webhooks: what a stranger registers cannot reach inside (no --allow-private-network)', () => {
  let service: RunningService;
  let token: string;
  before(async () => ({ service, token } = await startWithToken('acme')));
  after(() => service.stop());

  it('refuses loopback, private, link-local and metadata addresses in every spelling, naming why; others are still served', async () => {
    for (const url of [
      'http://127.0.0.1:9/hook',
      'http://2130706433/',
      'http://0x7f.1/',
      'http://0177.0.0.1/',
      'http://127.1/',
      'http://[::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.1/',
      'http://172.16.5.4/',
      'http://192.168.1.1/',
      'http://[fd00::1]/',
      'http://[fe80::1]/',
      'http://0.0.0.0/',
      'http://localhost:9/',
      'http://api.localhost/',
      'https://user:pw@example.com/',
    ]) {
      const r = await service.call('POST', '/webhooks', { token, body: { url } });
      assert.equal(r.status, 400, url);
      assert.equal(r.body.error.field, 'url');
      assert.match(r.body.error.message, /is refused: /, url);
    }
    const metadata = await service.call('POST', '/webhooks', { token, body: { url: 'http://169.254.169.254/' } });
    assert.match(metadata.body.error.message, /link-local address \(cloud metadata lives there\)/);
    assert.deepEqual((await service.call('GET', '/webhooks', { token })).body, []);
    assert.equal((await service.call('POST', '/videos', { token })).status, 200, 'the service still serves');
  });

  it('checks again at each delivery: a receiver allowed before is refused after a restart without the flag', async () => {
    const receiver = await new Receiver().listen();
    const { service: lax, token: laxToken } = await startWithToken('acme', LOCAL_RECEIVERS);
    const { body: hook } = await lax.call('POST', '/webhooks', { token: laxToken, body: { url: receiver.url } });
    assert.ok(hook._id);
    await lax.stop();
    const strict = await startService({ data: lax.data });
    const db = await serviceDatabase(lax);
    try {
      const id = await upload(strict, laxToken, await media('h264-aac-320p-4s.mp4'));
      await waitForVideo(strict, laxToken, id);
      const row = await until('the first attempt', async () => {
        const r = await db.selectFrom('webhook_deliveries').select(['attempts', 'last_error']).executeTakeFirst();
        return r && r.attempts >= 1 ? r : undefined;
      });
      assert.match(row.last_error ?? '', /^refused: 127\.0\.0\.1:\d+ is a loopback address/);
      assert.equal(receiver.received.length, 0, 'nothing reached the receiver');
    } finally {
      await db.destroy();
      await strict.stop();
      await receiver.close();
    }
  });
});

describe('webhooks: redirects, a limit, and slow receivers', () => {
  let service: RunningService;
  before(async () => ({ service } = await startWithToken('acme', LOCAL_RECEIVERS)));
  after(() => service.stop());

  it('does not follow a redirect: the 307 counts as a failed attempt and its target gets nothing', async () => {
    const target = await new Receiver().listen();
    const redirecting = await new Receiver([307], { headers: { location: target.url } }).listen();
    const token = await service.token('redirected');
    try {
      assert.equal((await service.call('POST', '/webhooks', { token, body: { url: redirecting.url } })).status, 200);
      await waitForVideo(service, token, await upload(service, token, await media('h264-aac-320p-4s.mp4')));
      await until('the attempt', async () => (redirecting.received.length >= 1 ? true : undefined));
      // After the retry wait the receiver is asked again (the first attempt did not count as delivered)…
      await service.advanceClock(5_000);
      await until('the second attempt', async () => (redirecting.received.length >= 2 ? true : undefined));
      // …and the redirect's target never was.
      await service.idle();
      assert.equal(target.received.length, 0);
    } finally {
      await Promise.all([target.close(), redirecting.close()]);
    }
  });

  it('keeps at most 10 webhooks per organization and environment (409 naming the limit)', async () => {
    const token = await service.token('many-hooks');
    for (let i = 0; i < 10; i++)
      assert.equal(
        (await service.call('POST', '/webhooks', { token, body: { url: `http://127.0.0.1:9/hook-${i}` } })).status,
        200,
      );
    const eleventh = await service.call('POST', '/webhooks', { token, body: { url: 'http://127.0.0.1:9/hook-10' } });
    assert.equal(eleventh.status, 409);
    assert.equal(eleventh.body.error.code, 'too_many_webhooks');
    assert.match(eleventh.body.error.message, /at most 10 webhooks/);
    assert.equal(
      (
        await service.call('POST', '/webhooks', {
          token: await service.token('many-hooks', 'sandbox'),
          body: { url: 'http://127.0.0.1:9/x' },
        })
      ).status,
      200,
    );
  });

  it("one organization's silent receivers do not delay another's delivery", async () => {
    const silent = await new Receiver([200], { silent: true }).listen();
    const prompt = await new Receiver().listen();
    const crowd = await service.token('silent-receivers');
    const other = await service.token('prompt-receiver');
    const db = await serviceDatabase(service);
    try {
      // Ten webhooks that never answer, each held 15 s: more than the 8 delivery slots.
      for (let i = 0; i < 10; i++)
        await service.call('POST', '/webhooks', { token: crowd, body: { url: `${silent.url}-${i}` } });
      await service.call('POST', '/webhooks', { token: other, body: { url: prompt.url } });
      await waitForVideo(service, crowd, await upload(service, crowd, await media('h264-aac-320p-4s.mp4')));
      await until('the silent receivers to be holding deliveries', async () =>
        silent.received.length >= 1 ? true : undefined,
      );
      await waitForVideo(service, other, await upload(service, other, await media('h264-aac-320p-4s.mp4')));
      await until("the other organization's delivery", async () => (prompt.received.length >= 1 ? true : undefined));
      // It arrived while the silent ones were still held: none of their attempts had ended yet.
      const ended = await db
        .selectFrom('webhook_deliveries')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('attempts', '>', 0)
        .where('webhook_id', 'in', (eb) =>
          eb.selectFrom('webhooks').select('id').where('url', 'like', `${silent.url}%`),
        )
        .executeTakeFirstOrThrow();
      assert.equal(ended.n, 0);
      assert.ok(silent.received.length <= 2, `at most 2 of one organization at once; got ${silent.received.length}`);
    } finally {
      await db.destroy();
      await Promise.all([silent.close(), prompt.close()]);
    }
  });
});
