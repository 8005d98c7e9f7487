import Uppy, { type Body, type UppyFile } from '@uppy/core';
import Dashboard from '@uppy/dashboard';
import type { Strings } from '../locale/en.js';
import type { UppyLocale } from '../locale/packs.js';
import type { Theme } from '../options.js';
import type { VideoMeta } from './aws-s3-options.js';
import { trapFocusInShadow } from './focus.js';

type File = UppyFile<VideoMeta, Body>;

export interface DashboardHostOptions {
  /** The element's id: Uppy's id is made from it, so that Golden Retriever finds this element's files again. */
  hostId: string;
  /** Where the Dashboard mounts: an element of the host's shadow root. */
  target: HTMLElement;
  strings: () => Strings;
  uppyLocale: UppyLocale;
  direction: 'ltr' | 'rtl';
  autoProceed: boolean;
  theme: Theme;
  restrictions: { maxFileSize: number | null; maxNumberOfFiles: number | null; allowedFileTypes: string[] | null };
  onBeforeFileAdded: (file: File) => File | boolean;
  /** Ends the page listeners (beforeunload, focus) when the host goes. */
  signal: AbortSignal;
}

/**
 * The Uppy instance with its Dashboard inline in the host's shadow root: disabled until the uploader is
 * installed (plugins.ts), focus kept inside its overlays, and a question before leaving a page that uploads.
 */
export function hostDashboard(o: DashboardHostOptions): Uppy<VideoMeta, Body> {
  const uppy = new Uppy<VideoMeta, Body>({
    id: `video-uploader${o.hostId ? `:${o.hostId}` : ''}`,
    autoProceed: o.autoProceed,
    restrictions: o.restrictions,
    locale: o.uppyLocale,
    onBeforeFileAdded: o.onBeforeFileAdded,
  });
  uppy.use(Dashboard, {
    inline: true,
    target: o.target,
    width: '100%',
    height: 380,
    proudlyDisplayPoweredByUppy: false,
    note: o.strings().dashboardNote,
    theme: o.theme,
    direction: o.direction,
    disabled: true,
    // The cards show a frame of each video (card.ts); Uppy's thumbnails are of images only. Our builds leave its
    // module out (vite.config.ts, dropThumbnailGenerator).
    disableThumbnailGenerator: true,
  });
  window.addEventListener(
    'beforeunload',
    (event) => {
      if (!uppy.getFiles().some((f) => f.progress.uploadStarted && !f.progress.uploadComplete && !f.error)) return;
      event.preventDefault();
      event.returnValue = o.strings().leaveWhileUploading;
    },
    { signal: o.signal },
  );
  trapFocusInShadow(
    o.target,
    () => uppy.getPlugin<Dashboard<VideoMeta, Body>>('Dashboard')?.getPluginState().activeOverlayType ?? null,
    o.signal,
  );
  return uppy;
}

/** Uppy's light or dark Dashboard; `auto` is its own: it follows `prefers-color-scheme`. */
export function setTheme(uppy: Uppy<VideoMeta, Body>, theme: Theme): void {
  uppy.getPlugin<Dashboard<VideoMeta, Body>>('Dashboard')?.setOptions({ theme });
}

/** Another language or direction, at run time: Uppy's strings, the note, and the layout. */
export function setLanguage(
  uppy: Uppy<VideoMeta, Body>,
  language: { uppy: UppyLocale; strings: Strings; dir: 'ltr' | 'rtl' },
): void {
  // Uppy 5.x's setOptions({locale}) rebuilds the core's translator and every plugin's, then re-renders.
  uppy.setOptions({ locale: language.uppy });
  const dashboard = uppy.getPlugin<Dashboard<VideoMeta, Body>>('Dashboard');
  dashboard?.setOptions({ note: language.strings.dashboardNote, direction: language.dir });
  // The Dashboard keeps a source's name from when it was added: the Link source is renamed here.
  const targets = dashboard?.getPluginState().targets ?? [];
  dashboard?.setPluginState({
    targets: targets.map((t) => (t.id === LINK_SOURCE ? { ...t, name: language.strings.linkSource } : t)),
  });
  // Uppy 5.x's UIPlugin reads `direction` once, when it mounts, into its root element's `dir`; no option
  // sets it again later, so the root's attribute is set here (`el` is that root, for an inline target).
  if (dashboard?.el) dashboard.el.dir = language.dir;
}

/** The plugin id of the Dashboard's Link source (link-source.ts): the Dashboard names its button by it. */
export const LINK_SOURCE = 'Link';

/** The Dashboard takes files again (the uploader is installed). */
export function enableDashboard(uppy: Uppy<VideoMeta, Body>): void {
  uppy.getPlugin<Dashboard<VideoMeta, Body>>('Dashboard')?.setOptions({ disabled: false });
}
