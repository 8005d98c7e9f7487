import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/**
 * Consumers' apps of the packed package, as a frontend team makes them: `npm pack`, installed into a fresh
 * webpack 5 app and a fresh Vite app, each built for production with the bundler's defaults. Used by
 * test/package (which serves and drives them) and by the bundle benchmark (which weighs them).
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

/** The page and the JS entry of every app: the README's snippet, and a log of the element's events. */
const INDEX_HTML = (script: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>consumer</title></head>
<body><video-uploader token-url="/api/video-token"></video-uploader><ol id="events"></ol>${script}</body></html>`;
const MAIN_JS = `import 'video-uploader';

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
      'webpack.config.mjs': `export default { mode: 'production', entry: './src/index.js', output: { path: new URL('./dist', import.meta.url).pathname, filename: 'main.js', clean: true } };\n`,
    },
    build: ['npx', 'webpack'],
    afterBuild: { 'dist/index.html': INDEX_HTML('<script src="main.js"></script>') },
  },
  {
    name: 'vite',
    tools: ['vite'],
    files: { 'index.html': INDEX_HTML('<script type="module" src="/src/main.js"></script>'), 'src/main.js': MAIN_JS },
    build: ['npx', 'vite', 'build'],
  },
];

/** The packed tarball, made once for every app (`npm pack` runs prepack, the library build, as `npm publish` does). */
let packed: Promise<string> | undefined;
const pack = () =>
  (packed ??= (async () => {
    const work = await mkdtemp(join(tmpdir(), 'video-uploader-pack-'));
    await run('npm', ['pack', '--pack-destination', work], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
    return join(work, (await readdir(work)).find((f) => f.endsWith('.tgz'))!);
  })());

/** Writes the app, installs the tarball and its bundler as a consumer would, builds it, and serves its output. */
export async function buildApp(app: App): Promise<string> {
  const tarball = await pack();
  const dir = await mkdtemp(join(tmpdir(), `video-uploader-${app.name}-app-`));
  const ours = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
  const devDependencies = Object.fromEntries(app.tools.map((t) => [t, ours.devDependencies[t]!]));
  const files = { ...app.files, 'package.json': JSON.stringify({ name: `${app.name}-app`, private: true, type: 'module', dependencies: { 'video-uploader': `file:${tarball}` }, devDependencies }) };
  for (const [name, text] of Object.entries(files)) {
    await mkdir(join(dir, name, '..'), { recursive: true });
    await writeFile(join(dir, name), text);
  }
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, maxBuffer: 16 * 1024 * 1024 });
  await run(app.build[0]!, app.build.slice(1), { cwd: dir, maxBuffer: 16 * 1024 * 1024 });
  for (const [name, text] of Object.entries(app.afterBuild ?? {})) await writeFile(join(dir, name), text);
  return join(dir, 'dist');
}

