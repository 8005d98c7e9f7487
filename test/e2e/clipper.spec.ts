import { expect, test, type Page } from '@playwright/test';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { push } from '../helpers/live.js';
import { firstFrameLikeness, probeDuration } from '../helpers/media.js';
import { env, event } from './demo.js';
import { tempDir } from '../helpers/temp.js';

/**
 * <recording-clipper> on the demo's Live page, against real RTMP pushes (ffmpeg -re) into the local service,
 * driven by keyboard alone.
 */

const LIVE = () => new URL('live.html', env('DEMO_URL')).href;
const clipper = (page: Page) => page.locator('recording-clipper');
const slider = (page: Page, name: 'Start' | 'End') => clipper(page).getByRole('slider', { name });

async function service(method: string, path: string, body?: unknown) {
  const res = await fetch(`${env('SERVICE_URL')}${path}`, {
    method,
    headers: { authorization: `Bearer ${env('SERVICE_KEY')}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(res.status, `${method} ${path}`).toBe(200);
  return res.json() as Promise<any>;
}

/** The Live page on a stream of the test's own, as the demo backend would hand it (its clip token included). */
async function openOwnStream(page: Page, name: string) {
  const stream = await service('POST', '/live_streams', { name });
  await page.route('**/api/live', (route) =>
    route.fulfill({ json: { streamId: stream._id, server: stream.ingest.server, streamKey: stream.stream_key } }),
  );
  await page.route('**/api/clip-token', async (route) =>
    route.fulfill({ json: await service('POST', '/tokens', { scope: 'clip', live_stream_id: stream._id }) }),
  );
  await page.goto(LIVE());
  return stream;
}

/** Presses Tab until `target` has the focus: the way a keyboard user gets there. */
async function tabTo(page: Page, target: ReturnType<Page['locator']>, most = 30) {
  for (let i = 0; i < most; i++) {
    if (await target.evaluate((el) => el.matches(':focus'))) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`${target} never got the focus by Tab`);
}

const valueOf = async (page: Page, name: 'Start' | 'End') =>
  Number(await slider(page, name).getAttribute('aria-valuenow'));

test('clips 5 s of a live stream by keyboard alone: 5 s to the frame, beginning on the frame chosen', async ({
  page,
}) => {
  test.setTimeout(180_000);
  // The demo backend makes the stream with its key and hands the page a clip token.
  const tokens: string[] = [];
  page.on('request', (r) => r.url().endsWith('/api/clip-token') && tokens.push(r.method()));
  await page.goto(LIVE());
  await expect(page.locator('#key')).toHaveText(/^lv_/);
  const server = await page.locator('#server').textContent();
  // 40 s: the part is converted while live, about 15 s after the recording's edge passed 10 s (24 s ended first once).
  const pushed = push(`${server}/${await page.locator('#key').textContent()}`, 40);

  // The recording appears, live, and the player's edge grows past 10 s.
  await expect(clipper(page).getByRole('button', { name: /^Live:/ })).toHaveAttribute('aria-pressed', 'true');
  await expect
    .poll(async () => Number(await slider(page, 'End').getAttribute('aria-valuemax')), { timeout: 30_000 })
    .toBeGreaterThanOrEqual(10);
  expect(tokens).toContain('POST');

  const start = slider(page, 'Start');
  await tabTo(page, start);
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  expect(await valueOf(page, 'Start')).toBeCloseTo(2, 1);
  for (let i = 0; i < 5; i++) await page.keyboard.press('Shift+ArrowRight');
  await expect.poll(() => valueOf(page, 'Start')).toBeGreaterThan(2.1);
  await expect(start).toHaveAttribute('aria-valuetext', /^00:00:02\.(1[5-9]|2)\d+$/);
  // The frame the person chose: the one the player shows at the start, as they saw it.
  await page.waitForTimeout(500);
  const chosen = await valueOf(page, 'Start');
  expect(chosen, 'five frames after 2 s').toBeCloseTo(2 + 5 / 30, 1);
  const shown = join(await tempDir('shown-'), 'shown.png');
  const png = await clipper(page)
    .locator('video.recording')
    .evaluate((video: HTMLVideoElement) => {
      const canvas = Object.assign(document.createElement('canvas'), {
        width: video.videoWidth,
        height: video.videoHeight,
      });
      canvas.getContext('2d')!.drawImage(video, 0, 0);
      return canvas.toDataURL('image/png');
    });
  await writeFile(shown, Buffer.from(png.split(',')[1]!, 'base64'));

  await page.keyboard.press('Tab');
  await expect(slider(page, 'End')).toBeFocused();
  await page.keyboard.press('Home');
  for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowRight');
  expect((await valueOf(page, 'End')) - chosen).toBeCloseTo(5, 3);
  await expect(clipper(page).getByText('Length: 5 s')).toBeVisible();

  await tabTo(page, clipper(page).getByRole('button', { name: 'Convert to video' }));
  await page.keyboard.press('Enter');
  const requested = await event(page, 'clip-requested', 30_000);
  expect(requested.duration).toBe(5);
  const streamId = await clipper(page).getAttribute('stream-id');
  const recordings = await service('GET', `/live_streams/${streamId}/temporary_recordings`);
  expect(recordings[0].status, 'converted while the stream was live').toBe('live');

  const ready = await event(page, 'clip-ready', 90_000);
  expect(ready.video.status).toBe('ready');
  await expect(
    clipper(page)
      .getByRole('status')
      .filter({ hasText: /^Ready$/ }),
  ).toBeVisible();
  // The new video plays in the element, and the stream's videos (#11) list it.
  await expect
    .poll(
      () =>
        clipper(page)
          .locator('video.result')
          .evaluate((v: HTMLVideoElement) => v.readyState),
      { timeout: 30_000 },
    )
    .toBeGreaterThanOrEqual(2);
  // The lists in words: the conversion at its local start, the video by its length, with its poster and a button.
  const at = new Date(ready.entry.from);
  const local = await page.evaluate(
    (ms) => new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'medium' }).format(new Date(ms)),
    at.getTime(),
  );
  await expect(clipper(page).locator('.exports li')).toHaveText([`${local}, 5 s: Ready`]);
  const listed = clipper(page).locator(`.videos li[data-video-id="${ready.video._id}"]`);
  await expect(listed.locator('.about')).toHaveText('5 s, Ready');
  await expect(listed.locator('img.poster')).toHaveAttribute('src', /^http/);
  await expect(listed.getByRole('button', { name: /^Play the 5 s video made on / })).toBeEnabled();
  const shownText = (await clipper(page).locator('[part="base"]').textContent())!;
  expect(shownText).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:/);
  expect(shownText).not.toContain('EXPORTED');
  expect(shownText).not.toContain('.mp4');

  const clip = ready.video.download_url as string;
  expect(Math.abs((await probeDuration(clip)) - 5), 'five seconds to within one frame').toBeLessThanOrEqual(1 / 30);
  // Its first frame is the one chosen: among the source's frames around the start (decoded by ffmpeg from the
  // recording), the clip's first frame and the frame shown at the start are likest to the same one.
  const source = recordings[0].playback.temporary_playback;
  const toClip = await firstFrameLikeness(clip, source, chosen - 0.2, 12);
  const toShown = await firstFrameLikeness(shown, source, chosen - 0.2, 12);
  const best = (scores: number[]) => scores.indexOf(Math.max(...scores));
  expect(best(toClip), `SSIM to the clip's first frame ${toClip}; to the frame shown ${toShown}`).toBe(best(toShown));
  expect(Math.max(...toClip)).toBeGreaterThan(0.95);
  expect(await pushed).toBe(0);
});

test('clips a part after the stream has ended, the times typed as time codes', async ({ page, request }) => {
  test.setTimeout(180_000);
  const stream = await openOwnStream(page, 'ended');
  expect(await push(stream.ingest.url, 8)).toBe(0);
  await expect(clipper(page).getByRole('button', { name: /^Stopped:/ })).toBeVisible({ timeout: 30_000 });
  await request.post(`${env('SERVICE_URL')}/__test__/clock`, { data: { advanceMs: 61_000 } });
  await expect(clipper(page).getByRole('button', { name: /^Complete:/ })).toBeVisible({ timeout: 30_000 });
  await expect(clipper(page).getByRole('button', { name: 'Convert the whole recording' })).toBeEnabled();

  const startField = clipper(page).getByRole('textbox', { name: 'Start' });
  await tabTo(page, startField);
  await startField.fill('soon');
  await page.keyboard.press('Tab');
  await expect(
    clipper(page)
      .getByRole('alert')
      .filter({ hasText: /Start: .*soon.* is not a time code/ }),
  ).toBeVisible();
  await startField.fill('00:00:01.500');
  await page.keyboard.press('Tab');
  await expect(slider(page, 'Start')).toHaveAttribute('aria-valuetext', /^00:00:01\.5/);
  const endField = clipper(page).getByRole('textbox', { name: 'End' });
  await endField.fill('00:00:04.500');
  await page.keyboard.press('Tab');
  await expect(clipper(page).getByText('Length: 3 s')).toBeVisible();
  // The part previews in a loop: playback stays inside it and comes back to its start.
  await tabTo(page, clipper(page).getByRole('button', { name: 'Preview the part in a loop' }));
  await page.keyboard.press('Enter');
  const times: number[] = [];
  for (let i = 0; i < 40; i++) {
    times.push(
      await clipper(page)
        .locator('video.recording')
        .evaluate((v: HTMLVideoElement) => v.currentTime),
    );
    await page.waitForTimeout(125);
  }
  expect(Math.min(...times), `${times}`).toBeGreaterThanOrEqual(1.45);
  expect(Math.max(...times), `${times}`).toBeLessThanOrEqual(4.55);
  expect(
    times.some((t, i) => i > 0 && t < times[i - 1]!),
    `it came back to the start: ${times}`,
  ).toBe(true);
  await page.keyboard.press('Enter');
  await tabTo(page, clipper(page).getByRole('button', { name: 'Convert to video' }));
  await page.keyboard.press('Enter');
  const ready = await event(page, 'clip-ready', 90_000);
  expect(Math.abs((await probeDuration(ready.video.download_url)) - 3)).toBeLessThanOrEqual(1 / 30);
  // Its play button plays it in the element's result player.
  const result = clipper(page).locator('video.result');
  await result.evaluate((v: HTMLVideoElement) => v.pause());
  await tabTo(page, clipper(page).getByRole('button', { name: /^Play the 3 s video made on / }));
  await page.keyboard.press('Enter');
  await expect(result).toHaveAttribute('data-video-id', ready.video._id);
  await expect.poll(() => result.evaluate((v: HTMLVideoElement) => !v.paused && v.currentTime > 0)).toBe(true);
});

test('a recording deleted while it is open says so', async ({ page }) => {
  const stream = await openOwnStream(page, 'deleted');
  expect(await push(stream.ingest.url, 4)).toBe(0);
  await expect(clipper(page).getByRole('slider', { name: 'Start' })).toBeVisible({ timeout: 30_000 });
  await service('DELETE', `/live_streams/${stream._id}`);
  await expect(clipper(page).getByRole('alert')).toContainText('This recording has been deleted');
  await expect(clipper(page).getByRole('slider')).toHaveCount(0);
});
