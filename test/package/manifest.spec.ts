import { expect, test } from '@playwright/test';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { RECORDING_CLIPPER_EVENTS } from '../../src/clipper/events.js';
import { RECORDING_CLIPPER_CSS_PROPERTIES, RECORDING_CLIPPER_PARTS } from '../../src/clipper/surface.js';
import { VIDEO_UPLOADER_EVENTS } from '../../src/events.js';
import { VIDEO_UPLOADER_CSS_PROPERTIES, VIDEO_UPLOADER_PARTS } from '../../src/surface.js';
import { pack } from '../helpers/consumer.js';

/**
 * The manifest as it ships: the custom-elements.json that the packed package's `customElements` field names, read
 * from the tarball. IDE hovers, docs and the Vue and Svelte typings are made from it, so an event, part or custom
 * property the class's JSDoc forgets is lost to all of them: each element's lists must be the ones in the code.
 */
const fromTarball = async (tarball: string, path: string) =>
  JSON.parse((await promisify(execFile)('tar', ['-xzOf', tarball, `package/${path}`])).stdout) as any;

const ELEMENTS = {
  'video-uploader': {
    events: VIDEO_UPLOADER_EVENTS,
    cssParts: VIDEO_UPLOADER_PARTS,
    cssProperties: VIDEO_UPLOADER_CSS_PROPERTIES,
  },
  'recording-clipper': {
    events: RECORDING_CLIPPER_EVENTS,
    cssParts: RECORDING_CLIPPER_PARTS,
    cssProperties: RECORDING_CLIPPER_CSS_PROPERTIES,
  },
};

let manifest: { modules: { declarations?: any[] }[] };
test.beforeAll(async () => {
  test.setTimeout(300_000);
  const tarball = await pack();
  const { customElements } = await fromTarball(tarball, 'package.json');
  manifest = await fromTarball(tarball, customElements);
});

for (const [tag, lists] of Object.entries(ELEMENTS)) {
  test(`the packed custom-elements.json lists <${tag}>'s events, parts and CSS properties, each described`, () => {
    const element = manifest.modules.flatMap((m) => m.declarations ?? []).find((d) => d.tagName === tag);
    expect(element, `<${tag}> is in the manifest`).toBeDefined();
    for (const [list, names] of Object.entries(lists)) {
      const listed: { name: string; description?: string }[] = element[list] ?? [];
      expect(listed.map((item) => item.name).sort(), `<${tag}>'s ${list}`).toEqual([...names].sort());
      expect(
        listed.filter((item) => !item.description).map((item) => item.name),
        `${list} without a description`,
      ).toEqual([]);
    }
  });
}
