import { defineConfig } from 'vite';

/**
 * `vite build`: the library, ESM, with lit, Uppy and hls.js left to the consumer's bundler
 * (dependencies, not bundled). hls.js is imported only from src/preview/hls.ts, which the element
 * loads with import() when a preview is shown, so it stays out of the entry chunk.
 * `vite` (serve): the demo page in demo/, which imports the element from src/.
 */
export default defineConfig(({ command }) =>
  command === 'build'
    ? {
        build: {
          target: 'es2022',
          outDir: 'dist',
          emptyOutDir: true,
          sourcemap: true,
          lib: { entry: 'src/index.ts', formats: ['es'], fileName: 'index' },
          rollupOptions: {
            external: (id) => /^(lit|@lit\/|@uppy\/|hls\.js)/.test(id) && !id.endsWith('?inline'),
            output: { chunkFileNames: '[name]-[hash].js' },
          },
        },
      }
    : { root: 'demo', server: { host: '127.0.0.1' }, clearScreen: false },
);
