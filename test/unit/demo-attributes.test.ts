import assert from 'node:assert/strict';
import { it } from 'node:test';
import { attributesFromSearch } from '../../demo/attributes.js';

/** As <video-uploader> observes them (`VideoUploader.observedAttributes`), in part. */
const OBSERVED = ['base-url', 'token-url', 'multipart-threshold', 'chunk-size', 'max-files', 'no-preview', 'theme'];

it("takes the element's own attributes from the address bar", () => {
  assert.deepEqual(attributesFromSearch('?multipart-threshold=10MB&chunk-size=5MB&no-preview=', OBSERVED), [
    ['multipart-threshold', '10MB'],
    ['chunk-size', '5MB'],
    ['no-preview', ''],
  ]);
});

it('never an event handler, a style or any other attribute the element does not observe', () => {
  const search = new URLSearchParams({
    onpointermove: 'alert(1)',
    onclick: 'alert(1)',
    style: 'position:fixed;inset:0',
    id: 'x',
    lang: 'ar',
    'max-files': '3',
  });
  assert.deepEqual(attributesFromSearch(`?${search}`, OBSERVED), [['max-files', '3']]);
});

it('never where the element sends its token or gets one, though it observes both', () => {
  const search = '?base-url=https://evil.example&token-url=https://evil.example/token&theme=dark';
  assert.deepEqual(attributesFromSearch(search, OBSERVED), [['theme', 'dark']]);
});
