import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { en, type Strings, type StringsOverride } from './en.js';
import type { UppyLocale } from './packs.js';

/** English, Uppy's included: Uppy's built-in strings, nothing to load. */
export const EN_UPPY: UppyLocale = { strings: {}, pluralize: (n) => (n === 1 ? 0 : 1) };

/** Languages written right to left (their Dashboard and previews are laid out so). */
const RTL = new Set(['ar', 'he', 'iw', 'fa', 'ur', 'ps', 'yi', 'ckb', 'dv', 'sd', 'ug']);
const primary = (tag: string) => tag.toLowerCase().split(/[-_]/)[0]!;
export const directionOf = (tag: string): 'ltr' | 'rtl' => (RTL.has(primary(tag)) ? 'rtl' : 'ltr');

/** A language's strings and Uppy pack; English at once, any other from its chunks (packs.ts). */
async function load(lang: string): Promise<{ strings: Strings; uppy: UppyLocale }> {
  if (primary(lang) === 'en') return { strings: en, uppy: EN_UPPY };
  const { loadLanguage } = await import('./packs.js');
  const loaded = await loadLanguage(lang);
  return { strings: loaded.strings ?? en, uppy: loaded.uppy ?? EN_UPPY };
}

/** The `lang` that applies to `el`: its own, or its nearest ancestor's, across shadow roots; `en` if none. */
export function langOf(el: Element): string {
  for (let node: Node | null = el; node; node = node.parentNode ?? (node as ShadowRoot).host ?? null) {
    const lang = (node as Element).getAttribute?.('lang');
    if (lang) return lang;
  }
  return 'en';
}

/** Every connected controller; one observer tells them all when a `lang` or `dir` changes anywhere. */
const controllers = new Set<LocalizeController>();
let observer: MutationObserver | undefined;
const WATCH = { attributes: true, attributeFilter: ['lang', 'dir'], subtree: true };

function watch(host: Element): void {
  observer ??= new MutationObserver(() => controllers.forEach((c) => void c.refresh()));
  observer.observe(document.documentElement, WATCH);
  const root = host.getRootNode();
  if (root instanceof ShadowRoot) observer.observe(root, WATCH);
}

/**
 * The element's language, as Shoelace's localize finds it: the `lang` of the element or its nearest
 * ancestor, followed at run time. Loads that language's strings and Uppy pack (packs.ts), lays out right to
 * left for a right-to-left language (unless the element has its own `dir`), and lays the `locale` property's
 * overrides on top. Until a pack has loaded, the previous language stays.
 */
export class LocalizeController implements ReactiveController {
  lang = 'en';
  dir: 'ltr' | 'rtl' = 'ltr';
  strings: Strings = en;
  uppy: UppyLocale = EN_UPPY;
  /** Settles once the first language asked for is in place. */
  readonly ready: Promise<void>;
  private base = { strings: en, uppy: EN_UPPY };
  private overrides: StringsOverride | undefined;
  private asked: string | undefined;
  private settle!: () => void;

  constructor(
    private readonly host: ReactiveControllerHost & HTMLElement,
    /** Heard after each change of language, direction or override. */
    private readonly onChange: () => void,
  ) {
    this.ready = new Promise((resolve) => (this.settle = resolve));
    host.addController(this);
  }

  hostConnected(): void {
    controllers.add(this);
    watch(this.host);
    void this.refresh();
  }

  hostDisconnected(): void {
    controllers.delete(this);
    if (controllers.size) return;
    observer?.disconnect();
    observer = undefined;
  }

  /** The `locale` property: any strings, Uppy's included, over the language's own. */
  override(overrides: StringsOverride | undefined): void {
    this.overrides = overrides;
    this.apply();
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
    let loaded = { strings: en, uppy: EN_UPPY };
    try {
      loaded = await load(lang);
    } catch (err) {
      // A pack that cannot load (offline, a chunk gone after a deploy) leaves the element in English, working.
      console.warn(`<video-uploader>: the strings for lang="${lang}" could not be loaded; English is used.`, err);
    }
    if (this.asked !== lang) return; // a later change won
    this.lang = lang;
    this.dir = dir;
    this.base = loaded;
    this.apply();
    this.settle();
  }

  private apply(): void {
    const { strings, uppy } = this.base;
    const o = this.overrides ?? {};
    this.strings = {
      ...strings,
      ...o,
      expected: { ...strings.expected, ...o.expected },
      errors: { ...strings.errors, ...o.errors },
      uppy: { ...strings.uppy, ...o.uppy },
    };
    this.uppy = { ...uppy, strings: { ...uppy.strings, ...this.strings.uppy } };
    this.host.requestUpdate();
    this.onChange();
  }
}
