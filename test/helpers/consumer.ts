import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { tempDir } from './temp.js';

/**
 * Consumers' apps of the packed package, as a frontend team makes them: `npm pack`, installed into a fresh
 * webpack 5 app and a fresh Vite app, each built for production with the bundler's defaults. Used by
 * test/package (which serves and drives them) and by the bundle benchmark (which weighs them).
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

/** The page and the JS entry of every app: the README's snippet, and a log of the element's events. */
export const INDEX_HTML = (script: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>consumer</title></head>
<body><video-uploader token-url="/api/video-token"></video-uploader><ol id="events"></ol>${script}</body></html>`;
export const MAIN_JS = `import 'video-uploader';

const uploader = document.querySelector('video-uploader');
const log = document.querySelector('#events');
for (const name of ['upload-success', 'upload-error', 'video-ready', 'preview-playing']) {
  uploader.addEventListener(name, (event) => {
    const item = document.createElement('li');
    item.dataset.event = name;
    item.textContent = name + ' ' + JSON.stringify(event.detail, (key, value) => (key === 'data' ? undefined : value instanceof Error ? value.message : value));
    log.append(item);
  });
}
fetch('/api/config').then((r) => r.json()).then(({ baseUrl }) => uploader.setAttribute('base-url', baseUrl));
`;

/** The clipper's page: `video-uploader/clipper` alone, on the demo backend's live stream with its clip token. */
export const CLIPPER_HTML = (script: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>clipper</title></head>
<body><recording-clipper token-url="/api/clip-token"></recording-clipper><ol id="events"></ol>${script}</body></html>`;
export const CLIPPER_JS = `import 'video-uploader/clipper';

const clipper = document.querySelector('recording-clipper');
const log = document.querySelector('#events');
for (const name of ['clip-requested', 'clip-ready', 'clip-failed', 'config-error']) {
  clipper.addEventListener(name, (event) => {
    const item = document.createElement('li');
    item.dataset.event = name;
    item.textContent = name + ' ' + JSON.stringify(event.detail);
    log.append(item);
  });
}
Promise.all([fetch('/api/config').then((r) => r.json()), fetch('/api/live').then((r) => r.json())]).then(([config, live]) => {
  clipper.setAttribute('stream-id', live.streamId);
  clipper.setAttribute('base-url', config.baseUrl);
});
`;

/** A TypeScript user's code: once the package is imported, the tag and its events are typed (compiled with `tsc`, not run). */
const TYPED_TS = `import 'video-uploader';
import type { VideoUploader } from 'video-uploader';

const uploader: VideoUploader = document.querySelector('video-uploader')!;
uploader.tokenProvider = async () => ({ token: 'from-my-backend', expiresAt: Date.now() + 60_000 });
uploader.addEventListener('upload-success', (event) => console.log(event.detail.videoId.toUpperCase()));
uploader.addEventListener('upload-error', (event) => console.log(event.detail.retryable, event.detail.error.message));
document.body.addEventListener('video-ready', (event) => console.log(event.detail.video.playback.hls_url));
// @ts-expect-error: the element has no such property, so the tag is not typed loosely
uploader.noSuchProperty = 1;
// @ts-expect-error: an event's detail is typed, so a videoId is no number
export const id: number = (null as unknown as HTMLElementEventMap['video-created']).detail.videoId;
`;

/** A React page that uses the wrapper: typed props, and each of its nine `on…` props logging its event. */
const REACT_JS = `import { createElement, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { VideoUploader } from 'video-uploader/react';

const replacer = (key, value) => (key === 'data' ? undefined : value instanceof Error ? value.message : value);
function App() {
  const [baseUrl, setBaseUrl] = useState(null);
  const [events, setEvents] = useState([]);
  useEffect(() => void fetch('/api/config').then((r) => r.json()).then((config) => setBaseUrl(config.baseUrl)), []);
  const log = (name) => (event) => setEvents((list) => [...list, name + ' ' + JSON.stringify(event.detail, replacer)]);
  return createElement('div', null,
    createElement(VideoUploader, {
      baseUrl: baseUrl ?? undefined,
      tokenUrl: '/api/video-token',
      onVideoCreated: log('video-created'),
      onShrinkStart: log('shrink-start'),
      onUploadProgress: log('upload-progress'),
      onUploadSuccess: log('upload-success'),
      onUploadError: log('upload-error'),
      onVideoReady: log('video-ready'),
      onVideoFailed: log('video-failed'),
      onPreviewPlaying: log('preview-playing'),
      onConfigError: log('config-error'),
    }),
    createElement('ol', { id: 'events' }, events.map((text, i) => createElement('li', { key: i, 'data-event': text.split(' ')[0] }, text))),
  );
}
createRoot(document.getElementById('root')).render(createElement(App));
`;

/** The wrapper rendered on the server, as Next.js or Remix would: it must not touch the DOM. */
const REACT_SSR = `import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { VideoUploader } from 'video-uploader/react';

console.log(renderToString(createElement(VideoUploader, { baseUrl: 'https://api.example.com', tokenUrl: '/api/video-token', onVideoReady: () => {} })));
`;

/**
 * Vue and Svelte users' templates see both tags' attributes, properties and events through the package's typings
 * (tsc, not run): a right use compiles, a wrong attribute value or event detail does not.
 */
const TYPED_VUE = `import type { GlobalComponents } from 'vue';
import type {} from 'video-uploader/vue';

type Props = InstanceType<GlobalComponents['video-uploader']>['$props'];
export const ok: Props = {
  'base-url': 'https://api.example.com',
  theme: 'dark',
  'parallel-uploads': 4,
  tokenProvider: async () => ({ token: 'from-my-backend', expiresAt: Date.now() + 60_000 }),
  onVideoReady: (event) => console.log(event.detail.video.playback.hls_url),
};
// @ts-expect-error: the element has no such theme
export const badTheme: Props = { theme: 'blue' };
// @ts-expect-error: an event's detail is typed, so a videoId is no number
export const badEvent: Props = { onUploadSuccess: (event: CustomEvent<{ videoId: number }>) => event };

type ClipperProps = InstanceType<GlobalComponents['recording-clipper']>['$props'];
export const clipper: ClipperProps = {
  'base-url': 'https://api.example.com',
  'stream-id': 'abc',
  theme: 'auto',
  tokenProvider: async () => ({ token: 'from-my-backend', expiresAt: Date.now() + 60_000 }),
  onClipRequested: (event) => console.log(event.detail.from, event.detail.duration.toFixed(3)),
  onClipReady: (event) => console.log(event.detail.video.playback.hls_url),
  onClipFailed: (event) => console.log(event.detail.reason),
  onConfigError: (event) => console.log(event.detail.attribute),
};
// @ts-expect-error: the clipper has no such attribute
export const badClipperAttribute: ClipperProps = { 'chunk-size': '5MB' };
// @ts-expect-error: clip-ready's detail is typed, so its video is no string
export const badClipperEvent: ClipperProps = { onClipReady: (event: CustomEvent<{ video: string }>) => event };
`;
const TYPED_SVELTE = `import type { SvelteHTMLElements } from 'svelte/elements';
import type {} from 'video-uploader/svelte';

type Attributes = SvelteHTMLElements['video-uploader'];
export const ok: Attributes = {
  'base-url': 'https://api.example.com',
  theme: 'auto',
  'onvideo-ready': (event) => console.log(event.detail.video.playback.hls_url),
};
// @ts-expect-error: the element has no such theme
export const badTheme: Attributes = { theme: 'blue' };
// @ts-expect-error: an event's detail is typed, so a videoId is no number
export const badEvent: Attributes = { 'onupload-success': (event: CustomEvent<{ videoId: number }>) => event };

type ClipperAttributes = SvelteHTMLElements['recording-clipper'];
export const clipper: ClipperAttributes = {
  'base-url': 'https://api.example.com',
  'stream-id': 'abc',
  theme: 'dark',
  'onclip-requested': (event) => console.log(event.detail.from, event.detail.duration.toFixed(3)),
  'onclip-ready': (event) => console.log(event.detail.video.playback.hls_url),
  'onclip-failed': (event) => console.log(event.detail.reason),
  'onconfig-error': (event) => console.log(event.detail.attribute),
};
// @ts-expect-error: the element has no such theme
export const badClipperTheme: ClipperAttributes = { theme: 'blue' };
// @ts-expect-error: clip-requested's detail is typed, so its duration is no string
export const badClipperEvent: ClipperAttributes = { 'onclip-requested': (event: CustomEvent<{ duration: string }>) => event };
`;

export interface App {
  name: string;
  /** Its package.json's devDependencies, at the versions this repository uses. */
  tools: string[];
  files: Record<string, string>;
  build: string[];
  /** Written after the build, into the output folder (webpack emits no HTML of its own). */
  afterBuild?: Record<string, string>;
}

export const APPS: App[] = [
  {
    name: 'webpack',
    tools: ['webpack', 'webpack-cli'],
    files: {
      'src/index.js': MAIN_JS,
      'src/clipper.js': CLIPPER_JS,
      'webpack.config.mjs': `export default { mode: 'production', entry: { main: './src/index.js', clipper: './src/clipper.js' }, output: { path: new URL('./dist', import.meta.url).pathname, filename: '[name].js', clean: true } };\n`,
    },
    build: ['npx', 'webpack'],
    afterBuild: {
      'dist/index.html': INDEX_HTML('<script src="main.js"></script>'),
      'dist/clipper.html': CLIPPER_HTML('<script src="clipper.js"></script>'),
    },
  },
  {
    name: 'vite',
    // TypeScript too: its users get the element's and its events' types from the package (docs/frameworks.md).
    tools: ['vite', 'typescript', 'vue', 'svelte'],
    files: {
      'index.html': INDEX_HTML('<script type="module" src="/src/main.js"></script>'),
      'src/main.js': MAIN_JS,
      'clipper.html': CLIPPER_HTML('<script type="module" src="/src/clipper.js"></script>'),
      'src/clipper.js': CLIPPER_JS,
      // Two pages: Vite builds the ones its config names (index.html alone by default).
      'vite.config.js': `export default { build: { rollupOptions: { input: ['index.html', 'clipper.html'] } } };\n`,
      'src/typed.ts': TYPED_TS,
      'src/typed-vue.ts': TYPED_VUE,
      'src/typed-svelte.ts': TYPED_SVELTE,
      'tsconfig.json': JSON.stringify({
        compilerOptions: {
          strict: true,
          target: 'ES2022',
          module: 'ESNext',
          moduleResolution: 'Bundler',
          lib: ['ES2022', 'DOM'],
          noEmit: true,
          skipLibCheck: true,
        },
        include: ['src/typed.ts', 'src/typed-vue.ts', 'src/typed-svelte.ts'],
      }),
    },
    build: ['npx', 'vite', 'build'],
  },
  {
    name: 'react',
    tools: ['vite', 'react', 'react-dom'],
    files: {
      'index.html': `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>react</title></head>\n<body><div id="root"></div><script type="module" src="/src/main.js"></script></body></html>`,
      'src/main.js': REACT_JS,
      'ssr.mjs': REACT_SSR,
    },
    build: ['npx', 'vite', 'build'],
  },
];

/** The packed tarball, made once for every app (`npm pack` runs prepack, the library build, as `npm publish` does). */
let packed: Promise<string> | undefined;
export const pack = () =>
  (packed ??= (async () => {
    const work = await tempDir('video-uploader-pack-');
    await run('npm', ['pack', '--pack-destination', work], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
    return join(
      work,
      (await readdir(work)).find((f) => f.endsWith('.tgz'))!,
    );
  })());

/** Writes the app, installs the tarball and its bundler as a consumer would, builds it, and serves its output. */
export async function buildApp(app: App): Promise<{ dir: string; dist: string }> {
  const tarball = await pack();
  const dir = await tempDir(`video-uploader-${app.name}-app-`);
  const ours = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
    devDependencies: Record<string, string>;
  };
  const devDependencies = Object.fromEntries(app.tools.map((t) => [t, ours.devDependencies[t]!]));
  const files = {
    ...app.files,
    'package.json': JSON.stringify({
      name: `${app.name}-app`,
      private: true,
      type: 'module',
      dependencies: { 'video-uploader': `file:${tarball}` },
      devDependencies,
    }),
  };
  for (const [name, text] of Object.entries(files)) {
    await mkdir(join(dir, name, '..'), { recursive: true });
    await writeFile(join(dir, name), text);
  }
  // A fresh app's environment: a Vite build earlier in this process sets NODE_ENV=production, which would
  // make npm leave out the app's devDependencies (its bundler).
  const { NODE_ENV: _, ...env } = process.env;
  const options = { cwd: dir, env, maxBuffer: 16 * 1024 * 1024 };
  await run(
    'npm',
    ['install', '--include=dev', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'],
    options,
  );
  await run(app.build[0]!, app.build.slice(1), options);
  for (const [name, text] of Object.entries(app.afterBuild ?? {})) await writeFile(join(dir, name), text);
  return { dir, dist: join(dir, 'dist') };
}
