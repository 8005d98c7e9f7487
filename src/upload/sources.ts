import type { Body, Uppy } from '@uppy/core';
import type Dashboard from '@uppy/dashboard';
import type { Strings } from '../locale/en.js';
import type { Source } from '../options.js';
import type { VideoMeta } from './aws-s3-options.js';
import { LINK_SOURCE } from './dashboard-host.js';
import { LinkSource } from './link-source.js';

export interface SourceDeps {
  strings: () => Strings;
  onLink: (url: string) => void;
  /** Adds a plugin's CSS to the element's shadow root, where the Dashboard lives. */
  adoptCss: (css: string) => void;
}

type Host = Dashboard<VideoMeta, Body>;

/** Camera and screen: Uppy 5's own plugins, each loaded (with its CSS) only when `sources` names it. */
const RECORDERS = {
  camera: {
    id: 'Webcam',
    async install(uppy: Uppy<VideoMeta, Body>, target: Host, adoptCss: (css: string) => void) {
      const [{ default: Webcam }, { default: css }] = await Promise.all([
        import('@uppy/webcam'),
        import('@uppy/webcam/css/style.min.css?inline'),
      ]);
      if (!ready(uppy, 'Webcam')) return;
      adoptCss(css);
      // Video with sound, or without; no photos: this element takes videos.
      uppy.use(Webcam, { target, modes: ['video-audio', 'video-only'], showRecordingLength: true });
    },
  },
  screen: {
    id: 'ScreenCapture',
    async install(uppy: Uppy<VideoMeta, Body>, target: Host, adoptCss: (css: string) => void) {
      const [{ default: ScreenCapture }, { default: css }] = await Promise.all([
        import('@uppy/screen-capture'),
        import('@uppy/screen-capture/css/style.min.css?inline'),
      ]);
      if (!ready(uppy, 'ScreenCapture')) return;
      adoptCss(css);
      uppy.use(ScreenCapture, { target });
    },
  },
};

/** After a plugin loaded: still wanted (the instance lives, and no other call installed it meanwhile). */
const ready = (uppy: Uppy<VideoMeta, Body>, id: string) => !!uppy.getPlugin('Dashboard') && !uppy.getPlugin(id);

/**
 * Makes the Dashboard's sources those of `sources` (`files,link` by default): the file picker and drop area, our
 * Link source (link-source.ts), the camera and the screen. A recording is added as a file, so it passes the same
 * restrictions and takes the same upload path. Removing a source uninstalls its plugin.
 */
export async function setSources(uppy: Uppy<VideoMeta, Body>, sources: readonly Source[], deps: SourceDeps) {
  const dashboard = uppy.getPlugin<Dashboard<VideoMeta, Body>>('Dashboard');
  if (!dashboard) return;
  dashboard.setOptions({ disableLocalFiles: !sources.includes('files') });
  const link = uppy.getPlugin(LINK_SOURCE);
  if (sources.includes('link') && !link)
    uppy.use(LinkSource, { target: dashboard, strings: deps.strings, onLink: deps.onLink });
  if (!sources.includes('link') && link) uppy.removePlugin(link);
  for (const source of ['camera', 'screen'] as const) {
    const recorder = RECORDERS[source];
    const installed = uppy.getPlugin(recorder.id);
    if (sources.includes(source) && !installed) await recorder.install(uppy, dashboard, deps.adoptCss);
    if (!sources.includes(source) && installed) uppy.removePlugin(installed);
  }
}
