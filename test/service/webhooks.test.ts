import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { AUDIO_FIELDS, GENERAL_FIELDS, VIDEO_FIELDS } from '../../src/api/types.js';
import { media } from '../helpers/media.js';
import { Receiver, type Received } from '../helpers/receiver.js';
import { startService, startWithToken, until, upload, waitForVideo, type RunningService } from '../helpers/service.js';

const HOUR = 3_600_000;
const FIELDS = { General: GENERAL_FIELDS, Video: VIDEO_FIELDS, Audio: AUDIO_FIELDS } as const;

/** The Standard Webhooks signature the receiver should have got for this delivery, made by the reference package. */
function expectedSignature(secret: string, got: Received): string {
  const timestamp = new Date(Number(got.headers['webhook-timestamp']) * 1000);
  return new Webhook(secret).sign(String(got.headers['webhook-id']), timestamp, got.body);
}

describe('webhooks: registration and video-ready', () => {
  let service: RunningService;
  let token: string;
  before(async () => ({ service, token } = await startWithToken('acme')));
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
    assert.deepEqual(listed, [{ _id: created.body._id, url: 'http://127.0.0.1:9/hook', events: ['video-ready'], creation_time: created.body.creation_time }]);
    assert.deepEqual((await service.call('GET', '/webhooks', { token: await service.token('other') })).body, []);
    assert.equal((await service.call('DELETE', `/webhooks/${created.body._id}`, { token })).status, 200);
    assert.equal((await service.call('DELETE', `/webhooks/${created.body._id}`, { token })).status, 404);
    assert.deepEqual((await service.call('GET', '/webhooks', { token })).body, []);
  });

  it('signs video-ready (Standard Webhooks); a receiver that fails twice gets the third delivery, same id', async () => {
    const receiver = await new Receiver([500, 500, 200]).listen();
    try {
      const { body: hook } = await service.call('POST', '/webhooks', { token, body: { url: receiver.url, events: ['video-ready'] } });
      const id = await upload(service, token, await media('h264-aac-320p-4s.mp4'));
      assert.equal((await waitForVideo(service, token, id)).status, 'ready');
      await until('the first delivery', async () => (receiver.received.length >= 1 ? true : undefined));
      await service.advanceClock(5_000);
      await until('the second delivery', async () => (receiver.received.length >= 2 ? true : undefined));
      await service.advanceClock(5 * 60_000);
      await until('the third delivery', async () => (receiver.received.length >= 3 ? true : undefined));
      // Delivered: nothing more comes, however long we wait. After a day, every job due has run.
      await service.advanceClock(24 * HOUR);
      await service.idle();
      assert.equal(receiver.received.length, 3);

      const [first] = receiver.received;
      assert.match(String(first!.headers['webhook-id']), /^msg_/);
      assert.ok(receiver.received.every((r) => r.headers['webhook-id'] === first!.headers['webhook-id']), 'one webhook-id for every attempt');
      // The first attempt is verified as a receiver would (its timestamp is now); later ones ran on the moved clock.
      const envelope = new Webhook(hook.secret).verify(first!.body, first!.headers as Record<string, string>) as any;
      for (const got of receiver.received) assert.equal(got.headers['webhook-signature'], expectedSignature(hook.secret, got));
      assert.throws(() => new Webhook(`whsec_${Buffer.alloc(24, 1).toString('base64')}`).verify(first!.body, first!.headers as Record<string, string>));

      assert.equal(envelope.event, 'video-ready');
      assert.equal(envelope.payload._id, id);
      const { mediainfo } = envelope.payload;
      assert.match(mediainfo.duration, /^\d+\.\d{3}$/);
      assert.deepEqual(mediainfo.track.map((t: any) => t['@type']), ['General', 'Video', 'Audio']);
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
    const { service: first, token } = await startWithToken('acme');
    const { body: hook } = await first.call('POST', '/webhooks', { token, body: { url: receiver.url } });
    const id = await upload(first, token, await media('h264-aac-320p-4s.mp4'));
    await waitForVideo(first, token, id);
    const db = new Database(join(first.data, 'service.db'), { readonly: true });
    const attempts = () => (db.prepare('SELECT attempts FROM webhook_deliveries').get() as { attempts: number } | undefined)?.attempts ?? 0;
    await until('the first attempt', async () => (attempts() >= 1 ? true : undefined));
    await first.kill();

    const service = await startService({ data: first.data });
    try {
      // The waits after attempts 1–6: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h (17.6 h in all); each attempt fails.
      for (const [i, wait] of [5_000, 5 * 60_000, 30 * 60_000, 2 * HOUR, 5 * HOUR, 10 * HOUR].entries()) {
        await service.advanceClock(wait);
        await until(`attempt ${i + 2}`, async () => (attempts() >= i + 2 ? true : undefined));
      }
      await receiver.listen(port);
      await service.advanceClock(10 * HOUR);
      await until('the delivery', async () => (receiver.received.length >= 1 ? true : undefined));
      const got = receiver.received[0]!;
      assert.equal(JSON.parse(got.body).payload._id, id);
      assert.equal(got.headers['webhook-signature'], expectedSignature(hook.secret, got));
      // The service records the delivery once the receiver's answer is in.
      const row = await until('the delivery to be recorded', async () => {
        const r = db.prepare('SELECT state, attempts, created_at FROM webhook_deliveries').get() as { state: string; attempts: number; created_at: number };
        return r.state === 'pending' ? undefined : r;
      });
      assert.deepEqual([row.state, row.attempts], ['delivered', 8]);
      assert.ok(Number(got.headers['webhook-timestamp']) * 1000 - row.created_at >= 24 * HOUR, 'the last try came more than a day after the first');
    } finally {
      db.close();
      await service.stop();
      await receiver.close();
    }
  });
});
