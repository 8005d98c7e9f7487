import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import ar from '../../src/locale/clipper-ar.js';
import de from '../../src/locale/clipper-de.js';
import es from '../../src/locale/clipper-es.js';
import fr from '../../src/locale/clipper-fr.js';
import he from '../../src/locale/clipper-he.js';
import it_ from '../../src/locale/clipper-it.js';
import ja from '../../src/locale/clipper-ja.js';
import ko from '../../src/locale/clipper-ko.js';
import nl from '../../src/locale/clipper-nl.js';
import pt from '../../src/locale/clipper-pt.js';
import ru from '../../src/locale/clipper-ru.js';
import zh from '../../src/locale/clipper-zh.js';
import { clipperEn } from '../../src/locale/clipper.js';

const LOCALE_DIR = fileURLToPath(new URL('../../src/locale/', import.meta.url));
const FSI = '\u2068';
const PDI = '\u2069';

const english = clipperEn;

type Table = typeof english;
const TABLES: Record<string, Table> = { ar, de, es, fr, he, it: it_, ja, ko, nl, pt, ru, zh };

/** The functions that take a number; every other argument is a text. */
const NUMERIC = new Set(['exportsCount', 'length', 'expected.count']);

/** A function's sample arguments: 7 for a number, a marker «i» for a text (no letters, so no script of its own). */
const samples = (path: string, fn: (...a: never[]) => string) =>
  Array.from({ length: fn.length }, (_, i) => (NUMERIC.has(path) ? 7 : `«${i}»`));

/** Every entry of a table, nested ones by their path (`status.live`): [path, the string or function]. */
function leaves(table: object, prefix = ''): [string, unknown][] {
  return Object.entries(table).flatMap(([key, value]): [string, unknown][] =>
    typeof value === 'object' && value !== null ? leaves(value, `${prefix}${key}.`) : [[`${prefix}${key}`, value]],
  );
}

/** Every entry as the text a person reads: strings as they are, functions called with their sample arguments. */
function texts(table: Table): [path: string, text: string, args: unknown[]][] {
  return leaves(table).map(([path, value]) => {
    if (typeof value === 'string') return [path, value, []];
    const fn = value as (...a: unknown[]) => string;
    const args = samples(path, fn);
    return [path, fn(...args), args];
  });
}

const call = (table: Table, path: string, args: unknown[]) =>
  (leaves(table).find(([p]) => p === path)![1] as (...a: unknown[]) => string)(...args);

/** Words of a text once its arguments are taken out. */
const words = (text: string, args: unknown[]) =>
  args.reduce<string>((t, a) => t.replaceAll(String(a), ' '), text).match(/\p{L}+/gu) ?? [];

describe('<recording-clipper> in the languages of <video-uploader> (src/locale/clipper-*.ts)', () => {
  it('has a table for every language the uploader speaks', async () => {
    const uploader = (await readdir(LOCALE_DIR))
      .map((f) => /^([a-z]{2})\.ts$/.exec(f)?.[1])
      .filter((lang) => lang && lang !== 'en');
    assert.deepEqual(Object.keys(TABLES).sort(), uploader.sort());
  });

  it('has exactly the entries of English in each language, nested ones included', () => {
    const keys = (table: object) => leaves(table).map(([path]) => path);
    const expected = keys(english).sort();
    for (const path of ['status.live', 'entryStatus.EXPORTED', 'videoStatus.waiting', 'play', 'video'])
      assert.ok(expected.includes(path), path);
    for (const [lang, table] of Object.entries(TABLES)) assert.deepEqual(keys(table).sort(), expected, lang);
  });

  it('shows every argument in a non-empty text, and translates every sentence', () => {
    const englishTexts = texts(english);
    for (const [lang, table] of Object.entries(TABLES)) {
      for (const [path, text, args] of texts(table)) {
        assert.ok(text.trim(), `${lang}.${path} is empty`);
        for (const arg of args) assert.ok(text.includes(String(arg)), `${lang}.${path} shows its argument ${arg}`);
        // A sentence of three words or more is never the same in another language; a word like "Live" may be.
        const englishText = englishTexts.find(([p]) => p === path)?.[1];
        if (englishText !== undefined && words(englishText, args).length >= 3)
          assert.notEqual(text, englishText, `${lang}.${path} is translated`);
      }
      // Without a reason, a failure is a sentence of its own, not one cut off at a colon.
      assert.match(table.failed(''), /[.。]$/, `${lang}.failed without a reason`);
    }
  });

  it('isolates a file name, a reason or a typed text wherever English does (FSI…PDI)', () => {
    const isolated: string[] = [];
    for (const [path, , args] of texts(english))
      args.forEach((_, i) => {
        if (typeof args[i] !== 'string') return;
        const withName = args.map((a, j) => (j === i ? 'x.mp4' : a));
        if (call(english, path, withName).includes(`${FSI}x.mp4${PDI}`)) isolated.push(`${path}(${i})`);
      });
    // What English isolates is what every language must: the reason of a failure or refusal, the text typed.
    assert.deepEqual(isolated, ['timecodeInvalid(1)', 'failed(0)', 'refused(0)']);
    for (const [lang, table] of Object.entries(TABLES))
      for (const entry of isolated) {
        const [, path, i] = /^(.+)\((\d)\)$/.exec(entry)!;
        const args = samples(path!, english[path as 'failed']).map((a, j) => (j === Number(i) ? 'x.mp4' : a));
        const text = call(table, path!, args);
        assert.ok(text.includes(`${FSI}x.mp4${PDI}`), `${lang}.${path} isolates x.mp4: ${JSON.stringify(text)}`);
      }
  });

  it('names the field first when a time code is wrong (the element marks that field by it)', () => {
    for (const [lang, t] of Object.entries(TABLES)) {
      assert.ok(!t.start.startsWith(t.end) && !t.end.startsWith(t.start), `${lang}: start and end tell apart`);
      assert.ok(t.timecodeInvalid(t.start, '1:2:3:4').startsWith(t.start), `${lang}: start first`);
      assert.ok(t.timecodeInvalid(t.end, '1:2:3:4').startsWith(t.end), `${lang}: end first`);
    }
  });

  it('writes Arabic and Hebrew without Latin letters but in the values it shows and the names on the keys', () => {
    // Key caps keep their Latin names in these languages (as Windows and macOS write them); HLS is a format's name.
    const allowed: Record<string, RegExp> = { keysHelp: /Shift|Page Up|Page Down|\bI\b|\bO\b/g, unplayable: /HLS/g };
    for (const lang of ['ar', 'he'])
      for (const [path, text, args] of texts(TABLES[lang]!)) {
        // The uploader's sentences about attributes quote the values to type (light, dark…), as they must.
        if (path === 'invalid' || path.startsWith('expected.')) continue;
        const rest = args
          .reduce<string>((t, a) => t.replaceAll(String(a), ''), text)
          .replace(allowed[path] ?? /^$/, '');
        assert.doesNotMatch(rest, /\p{Script=Latin}/u, `${lang}.${path}`);
      }
  });

  it('counts exports with the plural forms of each language', () => {
    const counts = (lang: string, ns: number[]) => ns.map((n) => TABLES[lang]!.exportsCount(n));
    assert.deepEqual(counts('ru', [1, 2, 5, 11, 21, 22, 25]), [
      '1 экспорт',
      '2 экспорта',
      '5 экспортов',
      '11 экспортов',
      '21 экспорт',
      '22 экспорта',
      '25 экспортов',
    ]);
    assert.deepEqual(counts('ar', [0, 1, 2, 3, 10, 11, 99, 100]), [
      'لا عمليات تصدير',
      'عملية تصدير واحدة',
      'عمليتا تصدير',
      '3 عمليات تصدير',
      '10 عمليات تصدير',
      '11 عملية تصدير',
      '99 عملية تصدير',
      '100 عملية تصدير',
    ]);
    assert.deepEqual(counts('fr', [0, 1, 2]), ['0 exportation', '1 exportation', '2 exportations']);
    // Japanese, Korean and Chinese have no plural: one wording whatever the number.
    for (const lang of ['ja', 'ko', 'zh']) {
      const [one, two, many] = counts(lang, [1, 2, 25]);
      assert.equal(two, one!.replace('1', '2'), lang);
      assert.equal(many, one!.replace('1', '25'), lang);
    }
    for (const [lang, t] of Object.entries(TABLES))
      if (!['ja', 'ko', 'zh', 'ar'].includes(lang))
        assert.notEqual(t.exportsCount(2), t.exportsCount(1).replace('1', '2'), lang);
  });
});
