/**
 * The source that starts a worker thread whose module is TypeScript, for `new Worker(tsWorker(url), { eval: true })`:
 * a worker thread does not inherit tsx's loader from `--import tsx`, so it loads the file through tsx's own API.
 */
export const tsWorker = (url: URL): string =>
  `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then(({ tsImport }) =>
  tsImport(${JSON.stringify(url.href)}, 'file:///'))`;
