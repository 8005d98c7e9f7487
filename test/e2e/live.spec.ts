import { expect, test, type Page } from '@playwright/test';
import { push } from '../helpers/live.js';
import { until } from '../helpers/service.js';
import { env } from './demo.js';

/**
 * The live half in a real browser: hls.js (the service's own copy, as the embed page loads it) plays a
 * recording's temporary_playback while the stream is live, and a conversion cut from it plays through
 * with every frame decoded.
 */

async function api(method: string, path: string, token: string, body?: unknown) {
  const res = await fetch(`${env('SERVICE_URL')}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(res.status, `${method} ${path}`).toBe(200);
  return res.json() as Promise<any>;
}

/** Plays `url` muted with hls.js in the page until `done` holds for the video; returns what the video saw. */
async function play(page: Page, url: string, done: 'playing 2 s' | 'ended') {
  return page.evaluate(
    async ({ url, done }) => {
      const Hls = (window as any).Hls;
      const video = document.createElement('video');
      video.muted = true;
      document.body.append(video);
      const hls = new Hls();
      const fatal: string[] = [];
      hls.on(Hls.Events.ERROR, (_: unknown, data: any) => data.fatal && fatal.push(`${data.type} ${data.details}`));
      hls.loadSource(url);
      hls.attachMedia(video);
      await video.play();
      await new Promise<void>((resolve, reject) => {
        const check = () => {
          if (fatal.length) reject(new Error(fatal.join(', ')));
          else if (done === 'ended' ? video.ended : video.currentTime >= 2) resolve();
          else setTimeout(check, 100);
        };
        check();
      });
      const quality = video.getVideoPlaybackQuality();
      const result = {
        currentTime: video.currentTime,
        frames: quality.totalVideoFrames,
        error: video.error?.message ?? null,
      };
      hls.destroy();
      video.remove();
      return result;
    },
    { url, done },
  );
}

test('a live recording plays while live in Chromium, and a part cut from it plays through', async ({
  page,
  request,
}) => {
  // Streams are the integrator's business, done with its key; the browser's upload token cannot (scopes).
  const token = env('SERVICE_KEY');
  const stream = await api('POST', '/live_streams', token, { name: 'browser' });
  await page.goto(`${env('SERVICE_URL')}/openapi.json`);
  await page.addScriptTag({ url: `${env('SERVICE_URL')}/embed/hls.min.js` });

  const pushed = push(stream.ingest.url, 9);
  const recording = await until('a segment to play', async () => {
    const [r] = await api('GET', `/live_streams/${stream._id}/temporary_recordings`, token);
    const text = r ? await (await fetch(r.playback.temporary_playback)).text() : '';
    return (text.match(/\.ts$/gm)?.length ?? 0) >= 2 ? r : undefined;
  });
  const live = await play(page, recording.playback.temporary_playback, 'playing 2 s');
  expect(live.error).toBeNull();
  expect(await pushed).toBe(0);

  await until('the publish to stop', async () =>
    (await api('GET', `/live_streams/${stream._id}/temporary_recordings`, token))[0].status === 'stopped'
      ? true
      : undefined,
  );
  await request.post(`${env('SERVICE_URL')}/__test__/clock`, { data: { advanceMs: 61_000 } });
  const complete = await until('complete', async () => {
    const [r] = await api('GET', `/live_streams/${stream._id}/temporary_recordings`, token);
    return r.status === 'complete' ? r : undefined;
  });
  // 1.5 s in, 5 s long: between keyframes at both ends (they come every 2 s).
  const from = new Date(Date.parse(complete.start_time) + 1_500).toISOString();
  await api('POST', `/live_streams/${stream._id}/temporary_recordings/${complete._id}`, token, { from, duration: 5 });
  const entry = await until(
    'EXPORTED',
    async () => {
      const [r] = await api('GET', `/live_streams/${stream._id}/temporary_recordings`, token);
      return r.export_data[0]?.status === 'EXPORTED' ? r.export_data[0] : undefined;
    },
    60_000,
  );
  const video = await api('GET', `/videos/${entry.video_id}`, token);
  const played = await play(page, video.playback.hls_url, 'ended');
  expect(played.error).toBeNull();
  expect(played.currentTime).toBeGreaterThan(4.5);
  // 150 of 150 here (cut whole). Cut by edges, Chromium's decoder dropped 2 frames at each seam: 146.
  expect(played.frames, 'the frames of 5 s at 30 fps decoded').toBeGreaterThanOrEqual(148);
});
