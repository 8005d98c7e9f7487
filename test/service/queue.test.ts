import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { media } from '../helpers/media.js';
import {
  completeMultipart,
  LOCAL_RECEIVERS,
  put,
  serviceDatabase,
  startWithToken,
  until,
  waitForVideo,
  type RunningService,
} from '../helpers/service.js';

/** An upload token for `user` of the key's organization (POST /tokens), as an integrator's backend mints one. */
async function uploadToken(service: RunningService, key: string, user: string): Promise<string> {
  const { status, body } = await service.call('POST', '/tokens', { token: key, body: { scope: 'upload', user } });
  assert.equal(status, 200);
  return body.token as string;
}

/** #1 and #2: a new video and its signed link; resolves with the video's id, and the link's answer. */
async function videoWithLink(service: RunningService, token: string) {
  const { body: video } = await service.call('POST', '/videos', { token, body: { file_name: 'clip.mp4' } });
  return { id: video._id as string, link: await service.call('POST', `/videos/${video._id}/uploads`, { token }) };
}

describe('queued work is capped per organization and per end user (429 queue_full)', () => {
  let service: RunningService;
  let key: string;
  // A third party's server that holds every request until the test lets it go, then answers 404: imports that
  // stay processing for as long as the test needs.
  const held: ServerResponse[] = [];
  let released = false;
  const files = createServer((_req, res) => (released ? res.writeHead(404).end() : held.push(res)));
  let url: string;

  before(async () => {
    await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(files.address() as AddressInfo).port}/clip.mp4`;
    ({ service, token: key } = await startWithToken('acme', {
      args: [
        ...LOCAL_RECEIVERS.args,
        ...['--max-queued-per-organization', '3', '--max-queued-per-user', '2'],
        ...['--import-header-timeout-seconds', '600'],
      ],
    }));
  });
  after(async () => {
    files.closeAllConnections();
    files.close();
    await service.stop();
  });

  const importHeld = async (token: string) => {
    const { body: video } = await service.call('POST', '/videos', { token });
    return service.call('POST', `/videos/${video._id}/import`, { token, body: { url } });
  };
  const assertQueueFull = (r: { status: number; body: any; headers: Headers }, message: string) => {
    assert.equal(r.status, 429, JSON.stringify(r.body));
    assert.equal(r.body.error.code, 'queue_full');
    assert.equal(r.body.error.message, message);
    assert.equal(r.headers.get('retry-after'), '30');
  };

  it("refuses new links, sessions and imports past a cap, with Retry-After, never bytes already allowed; another organization's upload is served", async () => {
    const ann = await uploadToken(service, key, 'ann');
    const bob = await uploadToken(service, key, 'bob');
    // Before the caps are reached, bob is given a link and a session.
    const early = await videoWithLink(service, bob);
    assert.equal(early.link.status, 200);
    const { body: sessionVideo } = await service.call('POST', '/videos', { token: bob });
    const session = await service.call('POST', `/videos/${sessionVideo._id}/multipart-upload/begin`, { token: bob });
    assert.equal(session.status, 200);

    // The end user's cap: ann has two imports under way.
    for (let i = 0; i < 2; i++) assert.equal((await importHeld(ann)).status, 202);
    const userFull =
      'This end user has 2 videos processing, the most allowed (--max-queued-per-user); try again when some are ready.';
    assertQueueFull((await videoWithLink(service, ann)).link, userFull);
    const { body: annVideo } = await service.call('POST', '/videos', { token: ann });
    assertQueueFull(
      await service.call('POST', `/videos/${annVideo._id}/multipart-upload/begin`, { token: ann }),
      userFull,
    );
    assertQueueFull(await importHeld(ann), userFull);

    // Another end user of the organization still has room, up to the organization's cap (3).
    assert.equal((await importHeld(bob)).status, 202);
    const orgFull =
      'This organization has 3 videos processing, the most allowed (--max-queued-per-organization); try again when some are ready.';
    assertQueueFull((await videoWithLink(service, key)).link, orgFull);
    assertQueueFull(await importHeld(bob), orgFull);

    // Another organization is not held by this one's queue.
    const other = await service.token('other');
    assert.equal((await videoWithLink(service, other)).link.status, 200);

    // What was allowed before the cap takes its bytes: the link's PUT and the session's chunk and complete.
    const bytes = new Uint8Array(2000).fill(7);
    assert.equal((await put(early.link.body.url, bytes)).status, 200);
    const key1 = session.body.key as string;
    const chunk = await service.call('POST', `/videos/${sessionVideo._id}/multipart-upload/get-chunk-upload-url`, {
      token: bob,
      body: { key: key1, chunkId: 1 },
    });
    const sent = await put(chunk.body.url, bytes);
    assert.equal(sent.status, 200);
    const complete = await completeMultipart(service, bob, key1, [sent.etag], { video: sessionVideo._id });
    assert.equal(complete.status, 200);

    // Once the work is done (the imports fail: the server answers 404), there is room again.
    released = true;
    for (const res of held.splice(0)) res.writeHead(404).end();
    await until(
      'the queue to empty',
      async () => ((await videoWithLink(service, ann)).link.status === 200 ? true : undefined),
      60_000,
    );
    assert.equal((await videoWithLink(service, key)).link.status, 200);
  });
});

describe('a fair queue: one organization with 120 videos queued barely delays another', () => {
  let service: RunningService;
  let key: string;
  before(async () => ({ service, token: key } = await startWithToken('alpha')));
  after(() => service.stop());

  it("processes another organization's single video within 3 x its idle time + 2 s, behind 120 of one organization", async (t) => {
    const file = await readFile(await media('h264-aac-320p-4s.mp4'));
    const beta = await service.token('beta');
    /** Uploads one video by signed link; resolves with its id and when its bytes were accepted (service clock: the system's). */
    const upload = async (token: string) => {
      const { id, link } = await videoWithLink(service, token);
      assert.equal(link.status, 200, JSON.stringify(link.body));
      assert.equal((await put(link.body.url, file)).status, 200);
      return { id, acceptedAt: Date.now() };
    };
    /** From accepted (#5) to ready (the service's ready_time). */
    const timeToReady = async (token: string) => {
      const { id, acceptedAt } = await upload(token);
      const video = await waitForVideo(service, token, id);
      assert.equal(video.status, 'ready', video.failure_reason);
      return { ms: Date.parse(video.ready_time) - acceptedAt, organization: video.organization as string };
    };

    const { ms: idle } = await timeToReady(beta);

    // 120 videos of alpha, from 8 end users (15 each, under the cap of 20), 8 PUTs at a time.
    const users = await Promise.all([...Array(8).keys()].map((i) => uploadToken(service, key, `visitor-${i}`)));
    const queue = [...Array(120).keys()].map((i) => users[i % users.length]!);
    await Promise.all(
      users.map(async () => {
        for (let token = queue.shift(); token; token = queue.shift()) await upload(token);
      }),
    );

    const { ms: loaded, organization } = await timeToReady(beta);
    const db = await serviceDatabase(service);
    const { backlog } = await db
      .selectFrom('videos')
      .select((eb) => eb.fn.countAll<number>().as('backlog'))
      .where('status', '=', 'processing')
      .where('organization_id', '!=', organization)
      .executeTakeFirstOrThrow()
      .finally(() => db.destroy());
    const bound = 3 * idle + 2000;
    t.diagnostic(
      `beta idle ${idle} ms, behind the backlog ${loaded} ms (bound ${bound} ms); alpha had ${backlog} left`,
    );
    assert.ok(backlog >= 60, `alpha still had ${backlog} videos processing when beta's was ready (the queue was full)`);
    assert.ok(
      loaded <= bound,
      `beta's video took ${loaded} ms behind alpha's backlog; idle ${idle} ms, bound ${bound} ms`,
    );
  });
});
