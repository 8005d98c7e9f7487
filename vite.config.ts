import postcss from 'postcss';
import { defineConfig, type Plugin } from 'vite';

/**
 * Uppy's CSS, as adopted into the shadow root, without its inline source map and without the rules
 * <video-uploader> never uses: the Dashboard is inline (not modal), has no remote-provider browser (its Link
 * source is its own: upload/link-source.ts) and edits no metadata (no file card). Dropping them is measured by
 * `npm run bench` (bench/widget.bench.ts, initial bundle size); a selector list loses only the matching
 * selectors, and a rule goes only when none is left.
 */
const UNUSED_UPPY_SELECTORS = [
  /\.uppy-(ProviderBrowser|Provider-|SearchProvider|ProviderIconBg)/,
  /\.uppy-Dashboard--modal|\.uppy-Dashboard-overlay|\.uppy-Dashboard-close/,
  // No metaFields: no file card, no edit button.
  /\.uppy-Dashboard-FileCard|\.uppy-Dashboard-Item-action--edit/,
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
 * `vite build`: the library, ESM, with lit, Uppy and hls.js left to the consumer's bundler
 * (dependencies, not bundled). hls.js is imported only from src/preview/hls.ts, which the element
 * loads with import() when a preview is shown, so it stays out of the entry chunk.
 * `vite` (serve): the demo page in demo/, which imports the element from src/.
 */
export default defineConfig(({ command, mode }) =>
  command === 'build' && mode === 'cdn'
    ? {
        // `vite build --mode cdn`: dist/cdn/video-uploader.js for a page without a bundler or an import map, with
        // lit, Uppy and its CSS inside, and hls.js, @uppy/aws-s3 and Golden Retriever as lazy chunks beside it.
        plugins: [pruneUppyCss()],
        define: { 'process.env.NODE_ENV': JSON.stringify('production') },
        build: {
          target: 'es2022',
          outDir: 'dist/cdn',
          emptyOutDir: true,
          sourcemap: true,
          lib: { entry: 'src/index.ts', formats: ['es'], fileName: 'video-uploader' },
          // The entry may export more than src/index.ts does, so the code the lazy chunks share stays in it
          // (one module to load) instead of going to a shared chunk of its own.
          rollupOptions: { preserveEntrySignatures: 'allow-extension', output: { chunkFileNames: '[name]-[hash].js' } },
        },
      }
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
      : { root: 'demo', plugins: [pruneUppyCss()], server: { host: '127.0.0.1' }, clearScreen: false },
);
