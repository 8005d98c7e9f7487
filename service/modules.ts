import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * Whether this service runs from its TypeScript source, through tsx (`npm start`'s demo imports it), or as built
 * (scripts/service-build.ts: `npm run service` and the tests): a module found by its file name has that extension.
 */
const FROM_SOURCE = import.meta.url.endsWith('.ts');

/** The module `name` (without extension) in the folder of the module at `base` (its `import.meta.url`). */
export const sibling = (name: string, base: string): URL => new URL(`${name}.${FROM_SOURCE ? 'ts' : 'js'}`, base);

/**
 * A worker thread running the module at `url`. From source it loads the file through tsx's own API: a worker thread
 * does not inherit tsx's loader from `--import tsx`.
 */
export function startWorker(url: URL, options: WorkerOptions = {}): Worker {
  if (!FROM_SOURCE) return new Worker(url, options);
  const source = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then(({ tsImport }) =>
  tsImport(${JSON.stringify(url.href)}, 'file:///'))`;
  return new Worker(source, { ...options, eval: true });
}
