import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { en, type Strings, type StringsOverride, type UppyStrings } from './en.js';
import { isolate } from './isolate.js';
import type { UppyLocale } from './packs.js';

/** Uppy's sentences in any language, each file name in them bidi-isolated as ours are (isolate.ts); once only. */
function isolateFileNames(strings: UppyStrings): UppyStrings {
  const name = (text: string) =>
    text.replace(/(?<!\u2068)%\{(file|fileName)\}/g, (placeholder) => isolate(placeholder));
  return Object.fromEntries(
    Object.entries(strings).map(([key, text]) => [
      key,
      typeof text === 'string'
        ? name(text)
        : Object.fromEntries(Object.entries(text).map(([form, plural]) => [form, name(plural)])),
    ]),
  );
}

/**
 * English, Uppy's included: Uppy's built-in strings, nothing to load, but for its sentences that name a file (its own
 * words, @uppy/core and @uppy/dashboard 5.x), given here so that the name in them is isolated as in every other.
 */
export const EN_UPPY: UppyLocale = {
  strings: isolateFileNames({
    exceedsSize: '%{file} exceeds maximum allowed size of %{size}',
    failedToUpload: 'Failed to upload %{file}',
    noDuplicates: "Cannot add the duplicate file '%{fileName}', it already exists",
    missingRequiredMetaFieldOnFile: 'Missing required meta fields in %{fileName}',
    editing: 'Editing %{file}',
    editFileWithFilename: 'Edit file %{file}',
  }),
  pluralize: (n) => (n === 1 ? 0 : 1),
};

/** Languages written right to left (their Dashboard and previews are laid out so). */
const RTL = new Set(['ar', 'he', 'iw', 'fa', 'ur', 'ps', 'yi', 'ckb', 'dv', 'sd', 'ug']);
const primary = (tag: string) => tag.toLowerCase().split(/[-_]/)[0]!;
export const directionOf = (tag: string): 'ltr' | 'rtl' => (RTL.has(primary(tag)) ? 'rtl' : 'ltr');

/** The `lang` that applies to `el`: its own, or its nearest ancestor's, across shadow roots; `en` if none. */
export function langOf(el: Element): string {
  for (let node: Node | null = el; node; node = node.parentNode ?? (node as ShadowRoot).host ?? null) {
    const lang = (node as Element).getAttribute?.('lang');
    if (lang) return lang;
  }
  return 'en';
}

/** Every connected controller; one observer tells them all when a `lang` or `dir` changes anywhere. */
const controllers = new Set<LanguageController<unknown>>();
let observer: MutationObserver | undefined;
const WATCH = { attributes: true, attributeFilter: ['lang', 'dir'], subtree: true };

function watch(host: Element): void {
  observer ??= new MutationObserver(() => controllers.forEach((c) => void c.refresh()));
  observer.observe(document.documentElement, WATCH);
  const root = host.getRootNode();
  if (root instanceof ShadowRoot) observer.observe(root, WATCH);
}

/**
 * The element's language, as Shoelace's localize finds it: the `lang` of the element or its nearest ancestor,
 * followed at run time, and its direction (right to left for a right-to-left language, unless the element has its
 * own `dir`). Each element's controller says what a language loads (`load`) and what it makes of it (`apply`).
 * Until a language has loaded, the previous one stays.
 */
export abstract class LanguageController<L> implements ReactiveController {
  lang = 'en';
  dir: 'ltr' | 'rtl' = 'ltr';
  /** Settles once the first language asked for is in place. */
  readonly ready: Promise<void>;
  protected base: L;
  private asked: string | undefined;
  private settle!: () => void;

  constructor(
    protected readonly host: ReactiveControllerHost & HTMLElement,
    /** English: what is used at first, and when a language cannot load. */
    private readonly english: L,
  ) {
    this.base = english;
    this.ready = new Promise((resolve) => (this.settle = resolve));
    host.addController(this);
  }

  /** What the language `lang` loads (English is `english`, given at once). */
  protected abstract load(lang: string): Promise<L>;
  /** Makes the current language (`base`, `dir`) and any overrides what the element shows; asks it to update. */
  protected abstract apply(): void;

  hostConnected(): void {
    controllers.add(this as LanguageController<unknown>);
    watch(this.host);
    void this.refresh();
  }

  hostDisconnected(): void {
    controllers.delete(this as LanguageController<unknown>);
    if (controllers.size) return;
    observer?.disconnect();
    observer = undefined;
  }

  async refresh(): Promise<void> {
    const lang = langOf(this.host);
    const own = this.host.getAttribute('dir');
    const dir = own === 'rtl' || own === 'ltr' ? own : directionOf(lang);
    if (lang === this.asked) {
      if (dir === this.dir) return;
      this.dir = dir;
      return this.apply();
    }
    this.asked = lang;
    let loaded = this.english;
    try {
      if (primary(lang) !== 'en') loaded = await this.load(lang);
    } catch (err) {
      // A pack that cannot load (offline, a chunk gone after a deploy) leaves the element in English, working.
      console.warn(
        `<${this.host.localName}>: the strings for lang="${lang}" could not be loaded; English is used.`,
        err,
      );
    }
    if (this.asked !== lang) return; // a later change won
    this.lang = lang;
    this.dir = dir;
    this.base = loaded;
    this.apply();
    this.settle();
  }
}

/** <video-uploader>'s language: its own sentences (a table per language) and Uppy's pack (packs.ts). */
export class LocalizeController extends LanguageController<{ strings: Strings; uppy: UppyLocale }> {
  strings: Strings = en;
  uppy: UppyLocale = EN_UPPY;
  private overrides: StringsOverride | undefined;

  constructor(
    host: ReactiveControllerHost & HTMLElement,
    /** Heard after each change of language, direction or override. */
    private readonly onChange: () => void,
  ) {
    super(host, { strings: en, uppy: EN_UPPY });
  }

  /** The `locale` property: any strings, Uppy's included, over the language's own. */
  override(overrides: StringsOverride | undefined): void {
    this.overrides = overrides;
    this.apply();
  }

  protected async load(lang: string): Promise<{ strings: Strings; uppy: UppyLocale }> {
    const { loadLanguage } = await import('./packs.js');
    const loaded = await loadLanguage(lang);
    return { strings: loaded.strings ?? en, uppy: loaded.uppy ?? EN_UPPY };
  }

  protected apply(): void {
    const { strings, uppy } = this.base;
    const o = this.overrides ?? {};
    this.strings = {
      ...strings,
      ...o,
      expected: { ...strings.expected, ...o.expected },
      errors: { ...strings.errors, ...o.errors },
      uppy: { ...strings.uppy, ...o.uppy },
    };
    this.uppy = { ...uppy, strings: isolateFileNames({ ...uppy.strings, ...this.strings.uppy }) };
    this.host.requestUpdate();
    this.onChange();
  }
}
