import { realpathSync, statSync } from 'node:fs';
import { join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import postcss from 'postcss';
import { defineConfig, isFileLoadingAllowed, type Plugin, type UserConfig } from 'vite';

/**
 * Uppy's CSS, as adopted into the shadow root, without its inline source map and without the rules
 * <video-uploader> never uses: the Dashboard is inline (not modal), has no remote-provider browser (its Link
 * source is its own: upload/link-source.ts) and edits no metadata fields (no file card). Dropping them is measured by
 * `npm run bench` (bench/widget.bench.ts, initial bundle size); a selector list loses only the matching
 * selectors, and a rule goes only when none is left.
 */
const UNUSED_UPPY_SELECTORS = [
  /\.uppy-(ProviderBrowser|Provider-|SearchProvider|ProviderIconBg)/,
  /\.uppy-Dashboard--modal|\.uppy-Dashboard-overlay|\.uppy-Dashboard-close/,
  // No metaFields: no file card. (The edit button stays: it opens the shrinking choices, shrink/shrink-editor.ts.)
  /\.uppy-Dashboard-FileCard/,
];

export function pruneUppyCss(): Plugin {
  return {
    name: 'prune-uppy-css',
    enforce: 'pre',
    async transform(code, id) {
      if (!/@uppy\/(core|dashboard)\/dist\/style\.min\.css/.test(id)) return null;
      const root = postcss.parse(code);
      // Uppy's style.min.css ends with a 31 KB inline source map: no use in a shadow root's <style>.
      root.walkComments((comment) => void comment.remove());
      root.walkRules((rule) => {
        const kept = rule.selectors.filter((s) => !UNUSED_UPPY_SELECTORS.some((re) => re.test(s)));
        if (kept.length === 0) rule.remove();
        else if (kept.length < rule.selectors.length) rule.selectors = kept;
      });
      root.walkAtRules((at) => {
        if (at.nodes?.length === 0) at.remove();
      });
      return { code: root.toString(), map: null };
    },
  };
}

/**
 * @uppy/thumbnail-generator, which the Dashboard imports whatever its options, replaced by an empty class in the
 * builds that bundle Uppy (the CDN file, the demo, the benchmarks' pages): the element turns it off
 * (`disableThumbnailGenerator`: its thumbnails are of images, and the cards show a frame of each video, card.ts),
 * and with the EXIF reader it brings it is 12 KB of the first load, gzipped (bench/widget.bench.ts).
 */
export function dropThumbnailGenerator(): Plugin {
  const stub = '\0thumbnail-generator-unused';
  return {
    name: 'drop-thumbnail-generator',
    enforce: 'pre',
    resolveId: (id) => (id === '@uppy/thumbnail-generator' ? stub : null),
    load: (id) => (id === stub ? 'export default class ThumbnailGenerator {}' : null),
  };
}

const repo = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * `vite` (serve), as `npm start` runs it: the demo pages, the library and its dependencies, nothing else. The
 * repository root is not served (it holds .git, .env files, the service and, before, the service's data); neither is the
 * demo's backend beside the pages, nor any dotfile. No CORS (Vite's default lets any page on
 * localhost read it), and Vite's Host check (`allowedHosts: []`: localhost names and IP addresses only) keeps
 * out DNS rebinding, whose pages come with their own name. demo/start.ts adds the data directory to `fs.deny`.
 */
function demoServer(): UserConfig {
  const nodeModules = repo('./node_modules');
  return {
    root: 'demo',
    plugins: [pruneUppyCss(), dropThumbnailGenerator(), plainRefusals()],
    // Imported only by the shrinking worker, which Vite's scan of the pages does not reach: found at run time, it
    // would be optimized then, and Vite reloads the page for that, in the middle of the upload that needed it.
    optimizeDeps: { include: ['mediabunny'] },
    server: {
      host: '127.0.0.1',
      cors: false,
      allowedHosts: [],
      fs: {
        strict: true,
        allow: [
          ...['index.html', 'live.html', 'main.ts', 'live.ts', 'attributes.ts'].map((page) => repo(`./demo/${page}`)),
          repo('./src'),
          // Dependencies where they really are (node_modules may be a link), and Vite's cache of them inside it.
          nodeModules,
          realpathSync(nodeModules),
        ],
        // Vite's own list, with every dotfile (.env, .npmrc, …) in place of the dotfiles it names.
        deny: ['.*', '**/.git/**', '*.{crt,pem,key,p12,pfx,cer,der}'],
      },
    },
    clearScreen: false,
  };
}

/**
 * Vite answers a refused file with a page that lists `server.fs.allow`, which names the repository's path. This
 * answers first, with a plain 403 and no path, for every request of a file outside the allow list: `/@fs/…`
 * and `/@id//…` (any path, there or not, so the answer tells nothing of what exists) and files under the root.
 * And it refuses /__open-in-editor.
 */
function plainRefusals(): Plugin {
  return {
    name: 'plain-refusals',
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        const url = req.url ?? '/';
        const file = requestedFile(url, server.config.root);
        // Vite opens the file a GET of /__open-in-editor names in the developer's editor, whichever page sends it.
        const refused =
          url.startsWith('/__open-in-editor') || !(file === undefined || isFileLoadingAllowed(server.config, file));
        if (!refused) return next();
        res.writeHead(403, { 'content-type': 'text/plain' }).end('Forbidden\n');
      });
    },
  };
}

/** The file a dev-server URL names, if it names one; `/@vite/…` and bare module ids name none. */
function requestedFile(url: string, root: string): string | undefined {
  let pathname: string;
  try {
    // Decoded whole (%2F included), never less than Vite decodes; normalized below.
    pathname = decodeURIComponent(new URL(url, 'http://localhost').pathname);
  } catch {
    return undefined; // Vite refuses a malformed path itself.
  }
  // A NUL names no file (Node refuses such a path, and Vite's error page would show it): refused as outside the list.
  if (pathname.includes('\0')) return pathname;
  const named = /^\/@(fs|id)\/(.*)$/.exec(pathname);
  // `/@fs/<path>` and `/@id/<absolute path>` name a file; `/@id/<module>` names a package, resolved by Vite.
  if (named) return named[1] === 'fs' || named[2]!.startsWith('/') ? normalize(`/${named[2]}`) : undefined;
  if (pathname.startsWith('/@')) return undefined;
  const file = join(root, pathname);
  return statSync(file, { throwIfNoEntry: false })?.isFile() ? file : undefined;
}

/**
 * `vite build --mode cdn` and `--mode cdn-clipper`: dist/cdn/video-uploader.js and dist/cdn/recording-clipper.js,
 * each for a page without a bundler or an import map, with lit (and for the uploader Uppy and its CSS) inside, and
 * hls.js (and the uploader's @uppy/aws-s3 and Golden Retriever) as lazy chunks beside it. Two builds, not two
 * entries of one: each file stands alone, where one build would move the code they share into a third file.
 */
function cdnBuild(entry: string, fileName: string, emptyOutDir: boolean): UserConfig {
  return {
    plugins: [pruneUppyCss(), dropThumbnailGenerator()],
    define: { 'process.env.NODE_ENV': JSON.stringify('production') },
    build: {
      target: 'es2022',
      outDir: 'dist/cdn',
      emptyOutDir,
      sourcemap: true,
      lib: { entry, formats: ['es'], fileName },
      // The entry may export more than its module does, so the code the lazy chunks share stays in it
      // (one module to load) instead of going to a shared chunk of its own.
      rollupOptions: { preserveEntrySignatures: 'allow-extension', output: { chunkFileNames: '[name]-[hash].js' } },
    },
  };
}

/**
 * `vite build`: the library, ESM, with lit, Uppy and hls.js left to the consumer's bundler
 * (dependencies, not bundled). hls.js is imported only from src/preview/hls.ts, which the element
 * loads with import() when a preview is shown, so it stays out of the entry chunk.
 * `vite` (serve): the demo pages in demo/, which import the elements from src/ (demoServer above).
 */
export default defineConfig(({ command, mode }) =>
  command === 'build' && mode === 'cdn'
    ? cdnBuild('src/index.ts', 'video-uploader', true)
    : command === 'build' && mode === 'cdn-clipper'
      ? cdnBuild('src/clipper.ts', 'recording-clipper', false)
      : command === 'build'
        ? {
            plugins: [pruneUppyCss()],
            build: {
              target: 'es2022',
              outDir: 'dist',
              emptyOutDir: true,
              sourcemap: true,
              lib: {
                entry: { index: 'src/index.ts', clipper: 'src/clipper.ts', react: 'src/react.ts' },
                formats: ['es'],
                fileName: (_format, name) => `${name}.js`,
              },
              rollupOptions: {
                external: (id) => /^(lit|@lit\/|@uppy\/|hls\.js|react|preact)/.test(id) && !id.endsWith('?inline'),
                output: { chunkFileNames: '[name]-[hash].js' },
              },
            },
          }
        : demoServer(),
);
