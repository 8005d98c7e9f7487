import type { Strings, UppyStrings } from './en.js';

/** An Uppy locale pack (@uppy/locales), as Uppy's `locale` option takes it. */
export interface UppyLocale {
  strings: UppyStrings;
  pluralize: (n: number) => number;
}

type Load<T> = () => Promise<{ default: T }>;

/**
 * This module is itself a chunk, loaded only for a language other than English: its tables name 53 chunks,
 * which would otherwise weigh on every page's first load.
 *
 * Our strings in other languages, one chunk each, loaded when a page asks for one. The imports are
 * written out: a bundler follows a literal `import()`, not a template (a consumer's Vite would miss them).
 */
const OURS: Record<string, Load<Strings>> = {
  ar: () => import('./ar.js'),
  de: () => import('./de.js'),
  es: () => import('./es.js'),
  fr: () => import('./fr.js'),
  he: () => import('./he.js'),
  it: () => import('./it.js'),
  ja: () => import('./ja.js'),
  ko: () => import('./ko.js'),
  nl: () => import('./nl.js'),
  pt: () => import('./pt.js'),
  ru: () => import('./ru.js'),
  zh: () => import('./zh.js'),
};

/**
 * Every pack of @uppy/locales 5.x (42), by BCP 47 tag in lower case. A bare language names the pack its
 * speakers most likely want (`pt` → pt_BR, `es` → es_ES, `zh` → zh_CN, `sr` → Cyrillic, `no` → nb_NO).
 * English is Uppy's built-in strings: nothing to load.
 */
const UPPY: Record<string, Load<UppyLocale>> = {
  ar: () => import('@uppy/locales/lib/ar_SA.js'),
  bg: () => import('@uppy/locales/lib/bg_BG.js'),
  ca: () => import('@uppy/locales/lib/ca_ES.js'),
  cs: () => import('@uppy/locales/lib/cs_CZ.js'),
  da: () => import('@uppy/locales/lib/da_DK.js'),
  de: () => import('@uppy/locales/lib/de_DE.js'),
  el: () => import('@uppy/locales/lib/el_GR.js'),
  es: () => import('@uppy/locales/lib/es_ES.js'),
  'es-mx': () => import('@uppy/locales/lib/es_MX.js'),
  'es-419': () => import('@uppy/locales/lib/es_MX.js'),
  fa: () => import('@uppy/locales/lib/fa_IR.js'),
  fi: () => import('@uppy/locales/lib/fi_FI.js'),
  fr: () => import('@uppy/locales/lib/fr_FR.js'),
  gl: () => import('@uppy/locales/lib/gl_ES.js'),
  he: () => import('@uppy/locales/lib/he_IL.js'),
  hi: () => import('@uppy/locales/lib/hi_IN.js'),
  hr: () => import('@uppy/locales/lib/hr_HR.js'),
  hu: () => import('@uppy/locales/lib/hu_HU.js'),
  id: () => import('@uppy/locales/lib/id_ID.js'),
  is: () => import('@uppy/locales/lib/is_IS.js'),
  it: () => import('@uppy/locales/lib/it_IT.js'),
  ja: () => import('@uppy/locales/lib/ja_JP.js'),
  ko: () => import('@uppy/locales/lib/ko_KR.js'),
  ms: () => import('@uppy/locales/lib/ms_MY.js'),
  nb: () => import('@uppy/locales/lib/nb_NO.js'),
  no: () => import('@uppy/locales/lib/nb_NO.js'),
  nl: () => import('@uppy/locales/lib/nl_NL.js'),
  pl: () => import('@uppy/locales/lib/pl_PL.js'),
  pt: () => import('@uppy/locales/lib/pt_BR.js'),
  'pt-pt': () => import('@uppy/locales/lib/pt_PT.js'),
  ro: () => import('@uppy/locales/lib/ro_RO.js'),
  ru: () => import('@uppy/locales/lib/ru_RU.js'),
  sk: () => import('@uppy/locales/lib/sk_SK.js'),
  sr: () => import('@uppy/locales/lib/sr_RS_Cyrillic.js'),
  'sr-latn': () => import('@uppy/locales/lib/sr_RS_Latin.js'),
  sv: () => import('@uppy/locales/lib/sv_SE.js'),
  th: () => import('@uppy/locales/lib/th_TH.js'),
  tr: () => import('@uppy/locales/lib/tr_TR.js'),
  uk: () => import('@uppy/locales/lib/uk_UA.js'),
  uz: () => import('@uppy/locales/lib/uz_UZ.js'),
  vi: () => import('@uppy/locales/lib/vi_VN.js'),
  zh: () => import('@uppy/locales/lib/zh_CN.js'),
  'zh-tw': () => import('@uppy/locales/lib/zh_TW.js'),
  'zh-hk': () => import('@uppy/locales/lib/zh_TW.js'),
  'zh-hant': () => import('@uppy/locales/lib/zh_TW.js'),
};

/**
 * The entry of `table` for `tag`, falling back by prefix: `pt-BR` → `pt`, `zh-Hant-TW` → `zh-Hant` → `zh`;
 * `undefined` when no prefix has one (English).
 */
export function byPrefix<T>(table: Record<string, T>, tag: string): T | undefined {
  const parts = tag.toLowerCase().replace(/_/g, '-').split('-');
  for (let n = parts.length; n > 0; n--) {
    const found = table[parts.slice(0, n).join('-')];
    if (found) return found;
  }
  return undefined;
}

/** Our strings and Uppy's pack for a language tag; `undefined` where there is none (English is used). */
export async function loadLanguage(tag: string): Promise<{ strings?: Strings; uppy?: UppyLocale }> {
  const [strings, uppy] = await Promise.all([byPrefix(OURS, tag)?.(), byPrefix(UPPY, tag)?.()]);
  return { strings: strings?.default, uppy: uppy?.default };
}
