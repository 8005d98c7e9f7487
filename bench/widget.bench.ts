/**
 * The widget from headless Chromium on loopback, against the local service. Prints figures; asserts nothing.
 *   - Upload throughput of a 512 MiB file: single link, and multipart with the element's defaults and two
 *     other shapes, each as a ratio to a raw `fetch` PUT and to a raw XMLHttpRequest PUT of the same Blob to a
 *     signed URL of the same storage. The page is built for production, as it ships (a dev server's
 *     dependency optimizer reloads the page when the lazy upload plugins first load). Then the CPU each took
 *     per MiB, by process (bench/cpu.ts): on two cores shared by Chromium and the service, the figure that says
 *     why one upload is slower than another, and steadier than the speed. BENCH_MIB and BENCH_ROUNDS (5) change
 *     the file's size and the rounds; BENCH_ROWS='text|…' runs only the rows whose label contains one of the texts,
 *     beside the two raw baselines (more rounds of fewer rows, to narrow one ratio).
 *   - gzip size of the element's initial JS+CSS and of its preview chunk, beside @mux/mux-uploader and
 *     @uppy/core + @uppy/dashboard + @uppy/aws-s3 (with their CSS), built with the same Vite settings.
 *   - `profile` only (not run by default): where the page's main thread spends its time during one upload of each
 *     kind, from Chromium's sampling profiler (CDP), the page built unminified so that functions keep their names.
 */
import { execFile } from 'node:child_process';
import { chromium, type Page } from 'playwright';
import { mkdir, open, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { build } from 'vite';
import { chromiumLaunchOptions } from '../test/helpers/browser.js';
import { APPS, buildApp } from '../test/helpers/consumer.js';
import { startService } from '../test/helpers/service.js';
import { serveStatic } from '../test/helpers/static.js';
import { tempDir } from '../test/helpers/temp.js';
import { dropThumbnailGenerator, pruneUppyCss } from '../vite.config.js';
import { cpuBetween, cpuSample } from './cpu.js';
import { interleaved, median, table } from './stats.js';
import { MiB } from '../src/api/limits.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);
const SIZE = Number(process.env.BENCH_MIB ?? 512) * MiB;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

/** A file of `size` bytes on disk (made once; its bytes do not matter to the upload path). */
export async function sourceFile(size = SIZE): Promise<string> {
  const dir = join(tmpdir(), 'video-uploader-bench');
  await mkdir(dir, { recursive: true });
  const path = join(dir, `source-${size}.bin`);
  if ((await stat(path).catch(() => null))?.size === size) return path;
  const block = Buffer.alloc(64 * MiB);
  for (let i = 0; i < block.length; i += 4) block.writeUInt32LE((i * 2654435761) >>> 0, i);
  const out = await open(path, 'w');
  for (let written = 0; written < size; written += block.length)
    await out.write(block, 0, Math.min(block.length, size - written));
  await out.close();
  return path;
}

export interface BenchPage {
  page: Page;
  /** Milliseconds to upload the file: `raw`, `raw-xhr`, `single` or `multipart` (chunk MiB), with extra attributes. */
  run(mode: string, chunkMiB?: number, attributes?: Record<string, string>): Promise<number>;
  /** CPU milliseconds by role (bench/cpu.ts) that the last run took, from its start to its upload's end. */
  cpu: Record<string, number>;
  /** Sets the service's faults (see service/faults.ts). */
  faults(body: unknown): Promise<void>;
  close(): Promise<void>;
}

/** Bench pages (HTML files under the repository) built for production into a temporary folder, removed at exit. */
export async function buildPages(pages: string[], minify = true): Promise<string> {
  const outDir = await tempDir('bench-pages-');
  await build({
    configFile: false,
    root: ROOT,
    logLevel: 'warn',
    plugins: [pruneUppyCss(), dropThumbnailGenerator()],
    build: { outDir, target: 'es2022', minify, rollupOptions: { input: pages.map((page) => join(ROOT, page)) } },
  });
  return outDir;
}

/**
 * The local service, the bench page (built, served as static files) in headless Chromium, and a file of `size`
 * bytes picked in it.
 */
export async function benchPage(minify = true, size = SIZE): Promise<BenchPage> {
  const service = await startService();
  const token = await service.token('bench');
  const dist = await buildPages(['bench/page.html'], minify);
  const served = await serveStatic(dist, service.api);
  const browser = await chromium.launch({ ...chromiumLaunchOptions(), headless: true });
  const page = await browser.newPage();
  await page.goto(`${served.url}bench/page.html`);
  await page.waitForFunction(() => (window as any).benchReady === true, undefined, { timeout: 60_000 });
  await page.locator('#source').setInputFiles(await sourceFile(size));
  const bench: BenchPage = {
    page,
    cpu: {},
    async run(mode, chunk = 0, attributes = {}) {
      const before = await cpuSample();
      const ms = (await page.evaluate(([m, api, t, c, a]) => (window as any).bench(m, api, t, c, a), [
        mode,
        service.api,
        token,
        chunk,
        attributes,
      ] as const)) as number;
      bench.cpu = cpuBetween(before, await cpuSample());
      // The next run starts with the service idle: the jobs this upload started (processing, the join of a
      // multipart upload's chunks) would otherwise share the two cores with it.
      await service.idle();
      return ms;
    },
    faults: async (body) => void (await service.call('POST', '/__test__/faults', { body })),
    async close() {
      await browser.close();
      served.server.close();
      await service.stop();
      await rm(service.data, { recursive: true, force: true });
    },
  };
  return bench;
}

export const mbps = (ms: number) => SIZE / 1e6 / (ms / 1000);

/** CPU of each role (bench/cpu.ts), in ms per MiB uploaded, as printed after the throughput table. */
const ROLES = ['renderer', 'network', 'browser', 'gpu', 'other', 'service js', 'service io', 'kernel, other'];

export async function throughput(): Promise<{ speed: string[][]; cpu: string[][] }> {
  const bench = await benchPage();
  const rows: string[][] = [];
  const cpuRows: string[][] = [];
  try {
    await bench.run('raw'); // warm-up
    const every: [label: string, mode: string, chunk: number, attributes: Record<string, string>, target: string][] = [
      ['raw fetch PUT (baseline)', 'raw', 0, {}, ''],
      ['raw XMLHttpRequest PUT (what uploaders with progress use)', 'raw-xhr', 0, {}, ''],
      ['widget, single link', 'single', 0, {}, '≥ 0.95 × raw XHR'],
      // Not a way to run the widget: the same with every animation and transition of the Dashboard off,
      // to measure what drawing any left costs here (software compositing, no GPU).
      ['widget, single link, every animation off (what is left to gain)', 'single:still', 0, {}, ''],
      ['widget, multipart, defaults (chunks sized to the file, 6 parallel)', 'multipart', 0, {}, '≥ 1.00'],
      ['widget, multipart 32 MiB × 4 parallel (the defaults before)', 'multipart', 32, { 'parallel-uploads': '4' }, ''],
      ['widget, multipart 64 MiB × 6 parallel', 'multipart', 64, {}, ''],
      // The fewest chunks multipart can have: what multipart itself costs here, whatever the chunk size.
      ['widget, multipart in 2 chunks', 'multipart', SIZE / MiB / 2, {}, ''],
      // The same upload as the second row: how far two identical runs differ on this machine.
      ['raw XMLHttpRequest PUT again (the noise)', 'raw-xhr', 0, {}, ''],
    ];
    const only = process.env.BENCH_ROWS?.split('|');
    const modes = every.filter(([label], i) => i < 2 || !only || only.some((text) => label.includes(text)));
    const cpu: Record<string, number>[][] = modes.map(() => []);
    const times = await interleaved(
      ROUNDS,
      modes.map(([, mode, chunk, attributes], i) => async () => {
        const ms = await bench.run(mode, chunk, attributes);
        cpu[i]!.push(bench.cpu);
        return ms;
      }),
    );
    // Ratios within a round (the runs of one round are back to back), then their median: this machine's speed
    // drifts between rounds by more than the differences between contenders (raw XHR 203–312 MB/s in one run).
    const ratio = (base: number[], i: number) => median(times[i]!.map((ms, round) => base[round]! / ms));
    modes.forEach(([label, , , , target], i) => {
      const ms = median(times[i]!);
      rows.push([
        label,
        `${mbps(ms).toFixed(0)} MB/s`,
        ratio(times[0]!, i).toFixed(2),
        ratio(times[1]!, i).toFixed(2),
        target,
        `${Math.round(mbps(Math.max(...times[i]!)))}–${Math.round(mbps(Math.min(...times[i]!)))}`,
      ]);
      // CPU per MiB is steadier than the speed: it does not depend on what else the machine did meanwhile.
      const perMiB = (r: string) => median(cpu[i]!.map((c) => (c[r] ?? 0) / (SIZE / MiB)));
      const total = median(cpu[i]!.map((c) => Object.values(c).reduce((a, b) => a + b, 0) / (SIZE / MiB)));
      const busy = median(cpu[i]!.map((c, round) => Object.values(c).reduce((a, b) => a + b, 0) / times[i]![round]!));
      cpuRows.push([
        label.replace(/ \(.*\)$/, ''),
        ...ROLES.map((r) => perMiB(r).toFixed(2)),
        total.toFixed(2),
        `${busy.toFixed(2)} of 2`,
        `${(2000 / total / (MiB / 1e6)).toFixed(0)} MB/s`,
      ]);
    });
  } finally {
    await bench.close();
  }
  return { speed: rows, cpu: cpuRows };
}

/**
 * Builds `code` as an entry with the same Vite settings for everything, and returns gzip bytes of what
 * a page loads at first (the entry and every chunk it imports statically, CSS included), of the hls.js
 * preview chunk, of the other chunks loaded with import(), and of workers.
 */
async function bundle(
  name: string,
  code: string,
  root = ROOT,
): Promise<{
  initial: number;
  preview: number;
  lazy: number;
  worker: number;
  mediainfo: number;
  recorders: number;
  shrink: number;
  shrinkWorker: number;
  locales: Map<string, number>;
}> {
  const entry = join(root, `bench/.entry-${name}.ts`);
  await mkdir(join(root, 'bench'), { recursive: true });
  await writeFile(entry, code);
  try {
    const result = (await build({
      configFile: false,
      root,
      logLevel: 'silent',
      plugins: name === 'video-uploader' ? [pruneUppyCss(), dropThumbnailGenerator()] : [],
      build: {
        write: false,
        target: 'es2022',
        minify: true,
        cssCodeSplit: false,
        lib: { entry, formats: ['es'], fileName: 'entry' },
      },
    })) as {
      output: (
        | { type: 'chunk'; fileName: string; code: string; isEntry: boolean; imports: string[]; moduleIds: string[] }
        | { type: 'asset'; fileName: string; source: string | Uint8Array }
      )[];
    }[];
    const output = result[0]!.output;
    const gz = (f: (typeof output)[number]) => gzipSync(f.type === 'chunk' ? f.code : f.source, { level: 9 }).length;
    const byName = new Map(output.map((f) => [f.fileName, f]));
    const initial = new Set<string>();
    const visit = (fileName: string) => {
      const f = byName.get(fileName);
      if (!f || initial.has(fileName)) return;
      initial.add(fileName);
      if (f.type === 'chunk') f.imports.forEach(visit);
    };
    output.filter((f) => f.type === 'chunk' && f.isEntry).forEach((f) => visit(f.fileName));
    output.filter((f) => f.fileName.endsWith('.css')).forEach((f) => initial.add(f.fileName));
    const sizes = {
      ...{ initial: 0, preview: 0, lazy: 0, worker: 0, mediainfo: 0, recorders: 0, shrink: 0, shrinkWorker: 0 },
      locales: new Map<string, number>(),
    };
    const has = (f: (typeof output)[number], what: RegExp) =>
      f.type === 'chunk' && f.moduleIds.some((id) => what.test(id));
    // Issue 31's shrinking, by the modules in a chunk or, for a worker Vite emits as a file of its own, by its name.
    const shrinking = (f: (typeof output)[number]) => /shrink/.test(f.fileName) || has(f, /mediabunny|\/src\/shrink\//);
    for (const f of output) {
      if (f.fileName.endsWith('.map')) continue;
      const language = LANGUAGE_CHUNK.exec(f.fileName)?.[1];
      if (initial.has(f.fileName)) sizes.initial += gz(f);
      else if (language) sizes.locales.set(language, gz(f));
      else if (has(f, /mediainfo\.js/)) sizes.mediainfo += gz(f);
      else if (has(f, /@uppy\/(webcam|screen-capture)/)) sizes.recorders += gz(f);
      else if (shrinking(f) && (f.fileName.includes('worker') || has(f, /mediabunny/))) sizes.shrinkWorker += gz(f);
      else if (shrinking(f)) sizes.shrink += gz(f);
      else if (f.fileName.includes('worker')) sizes.worker += gz(f);
      else if (f.fileName.startsWith('hls')) sizes.preview += gz(f);
      else sizes.lazy += gz(f);
    }
    return sizes;
  } finally {
    await rm(entry, { force: true });
  }
}

/**
 * A language's chunk, by its name: the table of them (`packs-<hash>.js`, loaded for any language but English),
 * ours (`de-<hash>.js`) or Uppy's pack (`de_DE-<hash>.js`).
 */
const LANGUAGE_CHUNK = /^(packs|[a-z]{2}(?:_[A-Z]{2}(?:_\w+)?)?)-[\w-]{8}\.js$/;

/** The last commit before the element spoke other languages, and the commit that taught it 55 (src only). */
const BEFORE_LANGUAGES = 'eaf9b0d';
const LANGUAGES = '2a042eb';

/** `src` as it was at `commit`, in a temporary folder with this checkout's node_modules. */
async function checkout(commit: string): Promise<string> {
  const dir = await tempDir('video-uploader-before-');
  await run('bash', ['-c', `git -C "${ROOT}" archive ${commit} src | tar -x -C "${dir}"`]);
  await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

export async function sizes(): Promise<string[][]> {
  const kb = (n: number) => `${(n / 1000).toFixed(1)} KB`;
  const ours = await bundle('video-uploader', `export * from '../src/index.ts';`);
  // Each built here with this checkout's Vite settings, so that only `src` differs.
  const at = async (commit: string) => {
    const dir = await checkout(commit);
    return bundle('video-uploader', `export * from '../src/index.ts';`, dir).finally(() =>
      rm(dir, { recursive: true, force: true }),
    );
  };
  const before = await at(BEFORE_LANGUAGES);
  const languages = await at(LANGUAGES);
  const language = (ourPack: string, uppyPack: string) =>
    ours.initial + [ourPack, uppyPack, 'packs'].reduce((sum, chunk) => sum + (ours.locales.get(chunk) ?? NaN), 0);
  const packs = (pattern: RegExp) => [...ours.locales].filter(([name]) => pattern.test(name)).map(([, n]) => n);
  const range = (sizes: number[]) => `${sizes.length} packs, ${kb(Math.min(...sizes))} to ${kb(Math.max(...sizes))}`;
  const mux = await bundle('mux-uploader', `import '@mux/mux-uploader';`);
  const uppy = await bundle(
    'uppy',
    `import Uppy from '@uppy/core'; import Dashboard from '@uppy/dashboard'; import AwsS3 from '@uppy/aws-s3';
     import '@uppy/core/css/style.min.css'; import '@uppy/dashboard/css/style.min.css';
     export { Uppy, Dashboard, AwsS3 };`,
  );
  return [
    ['<video-uploader> initial JS+CSS (lit, Uppy and its CSS included)', kb(ours.initial), '≤ 110 KB'],
    [`  at ${BEFORE_LANGUAGES}, before languages: baseline`, kb(before.initial), ''],
    [`  at ${LANGUAGES}, with 42 Uppy languages and 13 of ours (lazy)`, kb(languages.initial), ''],
    ['  growth for the languages', kb(languages.initial - before.initial), '≤ 3.0 KB'],
    [
      '  growth since: Link, sources, media checks, cards (mostly lazy), less what moved out',
      kb(ours.initial - languages.initial),
      '',
    ],
    [
      '<video-uploader> initial download, lang="de": + the language table, de, Uppy de_DE',
      kb(language('de', 'de_DE')),
      '≤ 110 KB',
    ],
    [
      '<video-uploader> initial download, lang="ar": + the language table, ar, Uppy ar_SA',
      kb(language('ar', 'ar_SA')),
      '≤ 110 KB',
    ],
    ['  our strings, one chunk per language (loaded when asked)', range(packs(/^[a-z]{2}$/)), ''],
    ["  Uppy's locale packs (@uppy/locales), one chunk each", range(packs(/_/)), ''],
    ['<video-uploader> preview chunk (hls.js), loaded when a preview is shown', kb(ours.preview), 'not in initial'],
    [
      '<video-uploader> uploader wiring, @uppy/aws-s3, Golden Retriever, the previews and cards: loaded after first render or with the first file',
      kb(ours.lazy),
      '',
    ],
    [
      '<video-uploader> MediaInfo (its WebAssembly inlined): only for a media limit on a file the browser cannot read',
      kb(ours.mediainfo),
      '',
    ],
    ['<video-uploader> @uppy/webcam and @uppy/screen-capture: only when sources names them', kb(ours.recorders), ''],
    ['<video-uploader> MD5 worker (hash-wasm), loaded on the first multipart upload', kb(ours.worker), ''],
    [
      '<video-uploader> shrinking: the Mediabunny worker, loaded when a video is to be shrunk (max-upload-resolution)',
      kb(ours.shrinkWorker),
      'not in initial',
    ],
    ['<video-uploader> shrinking: its main-thread part (the card choice, the uploader), lazy', kb(ours.shrink), ''],
    ['@mux/mux-uploader', kb(mux.initial + mux.preview + mux.lazy + mux.worker), ''],
    [
      '@uppy/core + @uppy/dashboard + @uppy/aws-s3 + CSS',
      kb(uppy.initial + uppy.preview + uppy.lazy + uppy.worker),
      '',
    ],
  ];
}

/**
 * What a consumer's production build ships (helpers/consumer.ts: the packed package in a webpack 5 app and a
 * Vite app, minified by each bundler's defaults): gzip of what the page loads at first (the files its HTML
 * names: the entry and, for Vite, its modulepreloads and CSS) and of every chunk loaded later.
 */
export async function consumerSizes(): Promise<string[][]> {
  const kb = (n: number) => `${(n / 1000).toFixed(1)} KB`;
  const rows: string[][] = [];
  for (const app of APPS) {
    const { dist } = await buildApp(app);
    const files = (await readdir(dist, { recursive: true })).filter((f) => /\.(js|css)$/.test(f));
    const gz = new Map<string, number>();
    for (const f of files) gz.set(f, gzipSync(await readFile(join(dist, f)), { level: 9 }).length);
    /** The files a page's HTML names: the entry and, for Vite, its modulepreloads and CSS. */
    const named = async (page: string) => {
      const html = await readFile(join(dist, page), 'utf8').catch(() => '');
      return new Set([...html.matchAll(/(?:src|href)="\/?([^"]+\.(?:js|css))"/g)].map((m) => m[1]!));
    };
    const uploader = await named('index.html');
    const clipper = await named('clipper.html');
    const sum = (keep: (f: string) => boolean) => files.filter(keep).reduce((n, f) => n + gz.get(f)!, 0);
    // The React app's page carries React itself as well: the target is the element's.
    rows.push([
      `${app.name} app, production build: initial JS+CSS of <video-uploader>'s page`,
      kb(sum((f) => uploader.has(f))),
      app.name === 'react' ? '(React included)' : '≤ 110 KB',
    ]);
    if (clipper.size)
      rows.push([
        `${app.name} app, production build: initial JS+CSS of <recording-clipper>'s page (hls.js lazy)`,
        kb(sum((f) => clipper.has(f))),
        (await Promise.all([...clipper].map((f) => readFile(join(dist, f), 'utf8')))).some((t) => t.includes('uppy-'))
          ? 'carries Uppy: it should not'
          : 'no Uppy in it',
      ]);
    rows.push([
      `${app.name} app, production build: chunks loaded later (aws-s3, Golden Retriever, hls.js, MD5 worker, every language's strings)`,
      kb(sum((f) => !uploader.has(f) && !clipper.has(f))),
      '',
    ]);
  }
  return rows;
}

/**
 * dist/cdn, as `npm run build` makes it (the benchmark builds it first): the file a page loads with
 * `<script type="module" src>`, and each lazy chunk beside it, gzip -9.
 */
export async function cdnSizes(): Promise<string[][]> {
  await run('npx', ['vite', 'build', '--mode', 'cdn', '--logLevel', 'error'], { cwd: ROOT });
  await run('npx', ['vite', 'build', '--mode', 'cdn-clipper', '--logLevel', 'error'], { cwd: ROOT });
  const entries: Record<string, string> = {
    'video-uploader.js': '(an uploader page loads this)',
    'recording-clipper.js': '(a clipper page loads this)',
  };
  const dir = join(ROOT, 'dist/cdn');
  const kb = (n: number) => `${(n / 1000).toFixed(1)} KB`;
  const rows: string[][] = [];
  const files = (await readdir(dir)).filter((f) => f.endsWith('.js'));
  const languages = await Promise.all(
    files
      .filter((f) => LANGUAGE_CHUNK.test(f))
      .map(async (f) => gzipSync(await readFile(join(dir, f)), { level: 9 }).length),
  );
  for (const f of files
    .filter((f) => !LANGUAGE_CHUNK.test(f))
    .sort((a, b) => Number(b in entries) - Number(a in entries) || a.localeCompare(b))) {
    const gz = gzipSync(await readFile(join(dir, f)), { level: 9 }).length;
    rows.push([`dist/cdn/${f} ${entries[f] ?? '(lazy)'}`, kb(gz), f === 'video-uploader.js' ? '≤ 110 KB' : '']);
  }
  rows.push([
    `dist/cdn: language chunks (lazy, one or two per language asked): ${languages.length} files`,
    `${kb(Math.min(...languages))} to ${kb(Math.max(...languages))} each`,
    '',
  ]);
  return rows;
}

/**
 * The page's main thread during one upload of each kind (after a warm-up of each): milliseconds not idle, and the
 * functions with the most self time. Chromium's sampling profiler every 0.1 ms; "(program)" is the browser's own
 * work on that thread (style, layout, paint, event dispatch), not JS.
 */
async function profile(): Promise<string[][]> {
  const bench = await benchPage(false);
  const rows: string[][] = [];
  try {
    const cdp = await bench.page.context().newCDPSession(bench.page);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
    for (const mode of ['raw-xhr', 'single', 'multipart']) {
      await bench.run(mode);
      await cdp.send('Profiler.start');
      const ms = await bench.run(mode);
      const { profile } = await cdp.send('Profiler.stop');
      const nodes = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
      const self = new Map<string, number>();
      profile.samples!.forEach((id, i) => {
        const f = nodes.get(id)!;
        const name = `${f.functionName || '(anonymous)'}${f.url ? ` ${f.url.split('/').pop()}:${f.lineNumber + 1}` : ''}`;
        self.set(name, (self.get(name) ?? 0) + (profile.timeDeltas![i + 1] ?? 0) / 1000);
      });
      self.delete('(idle)');
      const busy = [...self.values()].reduce((a, b) => a + b, 0);
      const top = [...self].sort((a, b) => b[1] - a[1]).slice(0, 12);
      rows.push([mode, `${ms.toFixed(0)} ms`, `${busy.toFixed(0)} ms`, '', '']);
      for (const [name, t] of top) rows.push(['', '', '', t.toFixed(1), name]);
    }
  } finally {
    await bench.close();
  }
  return rows;
}

/** `node --import tsx bench/widget.bench.ts [throughput|sizes|profile]` runs one part; no argument runs the first two. */
export async function main(only = process.argv[2]): Promise<void> {
  if (!only || only === 'throughput') {
    const { speed, cpu } = await throughput();
    console.log('\nWidget upload of 512 MiB from headless Chromium (loopback, this machine)');
    console.log('(ratios: the median of the ratios within each round)');
    console.log(
      table([['upload', 'median', 'ratio to raw fetch', 'ratio to raw XHR', 'target', 'range (MB/s)'], ...speed]),
    );
    console.log(
      '\nCPU per MiB uploaded (ms, medians): Chromium by process type, the service by thread, the rest of the machine',
    );
    console.log(
      "(cores busy: the machine's CPU time over the upload's time; ceiling: the speed if the 2 cores did only this)",
    );
    console.log(table([['upload', ...ROLES, 'total', 'cores busy', 'ceiling'], ...cpu]));
  }
  if (only === 'profile') {
    console.log(
      `\nThe page's main thread during one upload of ${SIZE / MiB} MiB (Chromium's profiler, the page unminified)`,
    );
    console.log(table([['upload', 'took', 'main thread busy', 'self ms', 'function'], ...(await profile())]));
  }
  if (!only || only === 'sizes') {
    console.log('\nBundle sizes, gzip -9, same Vite build settings (library mode, minified)');
    console.log(table([['bundle', 'gzip', 'target'], ...(await sizes())]));
    console.log('\nBundle sizes as consumers build them, gzip -9 (npm pack, installed and built for production)');
    console.log(table([['bundle', 'gzip', 'target'], ...(await consumerSizes())]));
    console.log('\nThe CDN file and its chunks, gzip -9 (for pages without a bundler)');
    console.log(table([['file', 'gzip', 'target'], ...(await cdnSizes())]));
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
