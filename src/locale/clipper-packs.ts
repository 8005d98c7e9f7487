import type { ClipperStrings } from './clipper.js';
import { byPrefix } from './packs.js';

/**
 * <recording-clipper>'s sentences in other languages, one chunk each, loaded when a page asks for one (this module is
 * itself a chunk, loaded only for a language other than English). The imports are written out: a bundler follows a
 * literal `import()`, not a template. A tag finds its table as the uploader's do (packs.ts: `pt-BR` → `pt`).
 */
const CLIPPER: Record<string, () => Promise<{ default: ClipperStrings }>> = {
  ar: () => import('./clipper-ar.js'),
  de: () => import('./clipper-de.js'),
  es: () => import('./clipper-es.js'),
  fr: () => import('./clipper-fr.js'),
  he: () => import('./clipper-he.js'),
  it: () => import('./clipper-it.js'),
  ja: () => import('./clipper-ja.js'),
  ko: () => import('./clipper-ko.js'),
  nl: () => import('./clipper-nl.js'),
  pt: () => import('./clipper-pt.js'),
  ru: () => import('./clipper-ru.js'),
  zh: () => import('./clipper-zh.js'),
};

/** The clipper's table for a language tag; `undefined` where there is none (English is used). */
export async function loadClipperStrings(tag: string): Promise<ClipperStrings | undefined> {
  return (await byPrefix(CLIPPER, tag)?.())?.default;
}
