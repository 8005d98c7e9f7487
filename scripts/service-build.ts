/**
 * The service as it runs: its TypeScript (service/ and the contract it shares with the element, src/api/) compiled to
 * JavaScript by esbuild, one file per module in the source's own layout, and run by plain `node`.
 *
 *   tsx scripts/service-build.ts     # compiles if the output changed, prints the path of its main.js
 *
 * `npm run service` runs what this prints, and the tests start the service the same way (test/helpers/service.ts).
 * Without a loader a process starts in half the CPU: through tsx a service cost 3.5–4.1 s of CPU until it was ready and a
 * command (`token`) 2.5–2.9 s, built 1.9–2.5 s and 0.8 s, and the tests start hundreds (docs/development.md). The source still
 * runs through tsx where that is how it is used (`npm start`'s demo imports service/app.ts): the few places that find a
 * module beside them by its file name ask `sibling()` (service/modules.ts) which extension they run with.
 *
 * The output goes to node_modules/.cache/service/<hash of the compiled files>/: a change makes a new folder, written
 * beside it and renamed into place, so a service already running, or another test file building at the same moment,
 * never reads a file half written. Packages resolve from there as from the source (node_modules is above it). The
 * newest KEEP folders stay: a service started before a change goes on finding its workers in its own.
 */
import * as esbuild from 'esbuild';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CACHE = join(ROOT, 'node_modules/.cache/service');
/** What the service's code is: every module of service/, and the contract and limits it shares with the element. */
const SOURCES = ['service', 'src/api'];
/** Builds kept in the cache, the newest first; older ones are removed as a new one is written. */
const KEEP = 10;

async function sources(): Promise<string[]> {
  const files: string[] = [];
  for (const dir of SOURCES)
    for (const entry of await readdir(join(ROOT, dir), { recursive: true }))
      if (entry.endsWith('.ts') && !entry.endsWith('.d.ts')) files.push(join(ROOT, dir, entry));
  return files;
}

let built: Promise<string> | undefined;

/** Compiles the service (when its output changed) and resolves with the path of its main.js; once per process. */
export const builtService = (): Promise<string> => (built ??= build());

async function build(): Promise<string> {
  const { outputFiles } = await esbuild.build({
    entryPoints: await sources(),
    outbase: ROOT,
    outdir: '/',
    write: false,
    bundle: false,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
  });
  const hash = createHash('sha256');
  for (const file of outputFiles.sort((a, b) => a.path.localeCompare(b.path)))
    hash.update(file.path).update(file.contents);
  const out = join(CACHE, hash.digest('hex').slice(0, 16));
  const main = join(out, 'service/main.js');
  if (existsSync(main)) return main;
  const temporary = `${out}.${process.pid}`;
  for (const file of outputFiles) {
    const path = join(temporary, relative('/', file.path));
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, file.contents);
  }
  // Another process that built the same output first has put it in place: its copy is the same.
  await rename(temporary, out).catch(() => rm(temporary, { recursive: true, force: true }));
  await prune();
  return main;
}

/** Removes the builds past the newest KEEP (and what a process that died mid-write left). */
async function prune() {
  const builds = await Promise.all(
    (await readdir(CACHE)).map(async (name) => ({ name, at: (await stat(join(CACHE, name))).mtimeMs })),
  );
  builds.sort((a, b) => b.at - a.at);
  for (const { name } of builds.slice(KEEP)) await rm(join(CACHE, name), { recursive: true, force: true });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) console.log(await builtService());
