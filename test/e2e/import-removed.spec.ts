import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { event, expect, open, test } from './demo.js';

/**
 * A third party's file server that sends the first bytes of a video and then holds the rest back: the service's import
 * of it stays under way for as long as the test wants (the demo runs with --allow-private-network).
 */
let files: { url: string; server: Server; held: ServerResponse[] };
test.beforeAll(async () => {
  const held: ServerResponse[] = [];
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(10 * 1024 * 1024) });
    res.write(Buffer.alloc(64 * 1024));
    held.push(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  files = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/slow.mp4`, server, held };
});
test.afterAll(async () => {
  for (const res of files.held) res.destroy();
  await new Promise((resolve) => files.server.close(resolve));
});

test('an element removed while the service imports its link stops asking how the import goes', async ({ page }) => {
  await open(page);
  await page.locator('video-uploader [data-uppy-acquirer-id="Link"] button').click();
  await page.locator('video-uploader input[name="url"]').fill(files.url);
  await page.locator('video-uploader .video-uploader-link button[type="submit"]').click();
  const { videoId } = await event(page, 'video-created');
  // #8 of this video, as the element asks it while the import goes on (every 500 ms).
  const polls: number[] = [];
  page.on('request', (r) => {
    if (r.method() === 'GET' && new URL(r.url()).pathname === `/videos/${videoId}`) polls.push(Date.now());
  });
  await expect.poll(() => polls.length, { message: 'the element follows the import' }).toBeGreaterThanOrEqual(2);

  await page.locator('video-uploader').evaluate((el) => el.remove());
  const asked = polls.length;
  // Six of its intervals, with room for a request already on its way when the element went.
  await page.waitForTimeout(3_000);
  expect(polls.length, 'requests after the element was removed').toBeLessThanOrEqual(asked + 1);
  const settled = polls.length;
  await page.waitForTimeout(3_000);
  expect(polls.length, 'no request at all once it has settled').toBe(settled);
});
