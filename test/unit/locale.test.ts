import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { VideoServiceError } from '../../src/api/errors.js';
import { en } from '../../src/locale/en.js';
import { describeError } from '../../src/locale/errors.js';
import { byPrefix, loadLanguage } from '../../src/locale/packs.js';
import { shrinkEn, shrinkStrings } from '../../src/locale/shrink.js';
import { isolated } from '../helpers/bidi.js';

const UPPY_LIB = fileURLToPath(new URL('../../node_modules/@uppy/locales/lib/', import.meta.url));
const OURS = ['ar', 'de', 'es', 'fr', 'he', 'it', 'ja', 'ko', 'nl', 'pt', 'ru', 'zh'];

/** A pack's file name as the BCP 47 tag a page would write for it. */
const tagOf = (pack: string) =>
  ({ sr_RS_Latin: 'sr-Latn-RS', sr_RS_Cyrillic: 'sr-Cyrl-RS' })[pack] ?? pack.replace('_', '-');

type Sentences = [path: string, text: string, args: string[]][];

/** Every string of a table, each function called with marked arguments: [path, text, arguments]. */
function sentences(table: object): Sentences {
  const out: Sentences = [];
  const walk = (value: unknown, path: string) => {
    if (typeof value === 'string') out.push([path, value, []]);
    else if (typeof value === 'function') {
      const args = Array.from({ length: value.length }, (_, i) => (i === 0 && path.endsWith('count') ? '7' : `«${i}»`));
      out.push([path, (value as (...a: unknown[]) => string)(...args), args]);
    } else if (path !== 'uppy')
      for (const [k, v] of Object.entries(value as object)) walk(v, path ? `${path}.${k}` : k);
  };
  walk(table, '');
  return out;
}

/** `theirs` has English's keys, each sentence not empty, translated, and showing each of its arguments. */
function assertTranslated(lang: string, theirs: Sentences, english: Sentences): void {
  assert.deepEqual(
    theirs.map(([path]) => path),
    english.map(([path]) => path),
    `${lang}: the same keys as English`,
  );
  for (const [path, text, args] of theirs) {
    const [, englishText] = english.find(([p]) => p === path)!;
    assert.ok(text.trim(), `${lang}.${path} is empty`);
    for (const arg of args) assert.ok(text.includes(arg), `${lang}.${path} shows its argument ${arg}`);
    // Names of attributes, formats and codes are the same in every language; a sentence is not.
    if (!/^(expected\.(theme))$/.test(path) && englishText.length > 12)
      assert.notEqual(text, englishText, `${lang}.${path} is translated`);
  }
}

describe('languages (src/locale)', () => {
  it("reaches every pack of @uppy/locales from its language's tag", async () => {
    const packs = (await readdir(UPPY_LIB)).filter((f) => f.endsWith('.js')).map((f) => f.slice(0, -3));
    assert.equal(packs.length, 42);
    for (const pack of packs) {
      const { default: expected } = (await import(`${UPPY_LIB}${pack}.js`)) as { default: unknown };
      const { uppy } = await loadLanguage(tagOf(pack));
      // English is Uppy's built-in strings: nothing is loaded for it.
      assert.equal(uppy, pack === 'en_US' ? undefined : expected, `${tagOf(pack)} → ${pack}`);
    }
  });

  it('falls back by prefix, then to English', async () => {
    const table = { pt: 'pt', 'pt-pt': 'pt-pt', zh: 'zh', 'zh-hant': 'zh-hant' };
    assert.equal(byPrefix(table, 'pt-BR'), 'pt');
    assert.equal(byPrefix(table, 'pt-PT'), 'pt-pt');
    assert.equal(byPrefix(table, 'pt_PT'), 'pt-pt');
    assert.equal(byPrefix(table, 'zh-Hant-TW'), 'zh-hant');
    assert.equal(byPrefix(table, 'zh-Hans-CN'), 'zh');
    assert.equal(byPrefix(table, 'tlh'), undefined);
    const brazil = await loadLanguage('pt-BR');
    assert.equal(brazil.strings, (await import('../../src/locale/pt.js')).default);
    assert.equal((await loadLanguage('en-GB')).strings, undefined);
  });

  it('has every sentence of English in each of its 12 other languages, translated, each argument shown', async () => {
    for (const lang of OURS) {
      const { strings } = await loadLanguage(lang);
      assert.ok(strings, lang);
      assertTranslated(lang, sentences(strings), sentences(en));
    }
  });

  it("has shrinking's sentences (shrink.ts) in the same 12, translated; the locale property overrides any", () => {
    for (const lang of OURS) assertTranslated(lang, sentences(shrinkStrings(lang, {})), sentences(shrinkEn));
    const german = shrinkStrings('de-AT', { shrinkLegend: 'Senden als', processing: en.processing });
    assert.equal(german.shrinkLegend, 'Senden als');
    assert.equal(german.trimLabel, shrinkStrings('de', {}).trimLabel);
    assert.notEqual(german.trimLabel, shrinkEn.trimLabel);
    assert.ok(!('processing' in german), 'only its own keys');
    assert.equal(shrinkStrings('tlh', {}).trimLabel, shrinkEn.trimLabel, 'English where there is no table');
  });

  it('bidi-isolates each file name, URL and reason in every sentence, in every language', async () => {
    // Which arguments are names someone else wrote, read from English's parameter names (`(name, reason) =>`).
    const NAMES = /^(name|url|reason)$/;
    const named = sentences(en).flatMap(([path, , args]) => {
      const fn: unknown = path.split('.').reduce((t: any, k) => t[k], en);
      if (typeof fn !== 'function') return [];
      const params = /^\(?([^)=]*)\)?\s*=>/
        .exec(fn.toString())![1]!
        .split(',')
        .map((p) => p.trim().replace(/\W.*$/, ''));
      return params.flatMap((param, i) => (NAMES.test(param) ? [[path, args[i]!] as const] : []));
    });
    assert.ok(named.length >= 20, `the sentences that carry a name: ${named.length}`);
    for (const lang of ['en', ...OURS]) {
      const strings = lang === 'en' ? en : (await loadLanguage(lang)).strings!;
      const texts = new Map(sentences(strings).map(([path, text]) => [path, text]));
      for (const [path, arg] of named)
        assert.ok(texts.get(path)!.includes(isolated(arg)), `${lang}.${path}: ${arg} isolated`);
    }
  });

  it('tells a person why an upload failed by its code, whatever the technical message', () => {
    const e = (code: string, status = 0) => new VideoServiceError('technical text', status, code, false);
    assert.equal(describeError(e('network'), en, 'a.mp4'), en.errors.network);
    assert.equal(describeError(e('token'), en, 'a.mp4'), en.errors.notAllowed);
    assert.equal(describeError(e('insufficient_scope', 403), en, 'a.mp4'), en.errors.notAllowed);
    assert.equal(describeError(e('quota_exceeded', 403), en, 'a.mp4'), en.errors.quota);
    assert.equal(describeError(e('payload_too_large', 413), en, 'a.mp4'), en.errors.tooLarge);
    assert.equal(describeError(e('signature_expired', 403), en, 'a.mp4'), en.errors.expired);
    assert.equal(describeError(e('internal', 500), en, 'a.mp4'), en.errors.unavailable);
    assert.equal(describeError(e('rate_limited', 429), en, 'a.mp4'), en.errors.unavailable);
    assert.equal(describeError(e('etag_not_exposed', 200), en, 'a.mp4'), en.errors.setup('etag_not_exposed'));
    assert.equal(describeError(e('not_same_file'), en, 'a.mp4'), en.notSameFile('a.mp4'));
    assert.equal(describeError(e('already_uploaded', 409), en, 'a.mp4'), en.errors.other('already_uploaded'));
  });
});
