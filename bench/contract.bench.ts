/**
 * The service before and after it became contract first (Fastify + TypeBox; issue 10), in one run, on loopback.
 * Prints figures; asserts nothing.
 *   - API requests per second and p99 latency of #1 (POST /videos) and #8 (GET /videos/{id}) under autocannon
 *     (10 connections, 5 s a sample, 3 samples each, interleaved before/after).
 *   - The 1 GiB single PUT through the storage origin, in MB/s (3 samples each, interleaved).
 * "Before" is the last commit with the hand-written router, checked out into a temporary folder beside this one
 * and run with this checkout's node_modules.
 */
import autocannon from 'autocannon';
import { execFile } from 'node:child_process';
import { mkdir, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { checkedOrigins } from '../test/helpers/contract.js';
import { startService, type RunningService } from '../test/helpers/service.js';
import { tempDir } from '../test/helpers/temp.js';
import { bigFile, mbps, putRange, singleUrl } from './service.bench.js';
import { median, table } from './stats.js';

/** The last commit whose API ran on the hand-written router (service/http/router.ts). */
const BEFORE = '04b7dba';
const ROOT = fileURLToPath(new URL('../', import.meta.url));
const ROUNDS = 3;
const GiB = 1024 ** 3;
const sh = promisify(execFile);

async function checkoutBefore(): Promise<string> {
  const dir = await tempDir('video-service-before-');
  await sh('bash', ['-c', `git -C "${ROOT}" archive ${BEFORE} demo src package.json | tar -x -C "${dir}"`]);
  await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

async function load(
  url: string,
  method: 'GET' | 'POST',
  token: string,
): Promise<{ rps: number; p99: number; errors: number }> {
  const result = await autocannon({
    url,
    method,
    connections: 10,
    duration: 5,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: method === 'POST' ? '{"file_name":"bench.mp4"}' : undefined,
  });
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.non2xx + result.errors };
}

export async function main(): Promise<void> {
  const dir = await checkoutBefore();
  const file = await bigFile();
  const services: Record<'before' | 'after', RunningService> = {
    before: await startService({ main: join(dir, 'service/main.ts') }),
    // It measures the router, not the bounds of issue 28: thousands of videos a second from one key are let through.
    after: await startService({
      args: ['--rate-limit-per-minute', '1000000000', '--max-open-uploads-per-organization', '1000000000'],
    }),
  };
  // The old service's answers follow the old document: only this checkout's service is held to the new one.
  checkedOrigins.delete(services.before.api);
  const samples = {
    create: { before: [] as number[], after: [] as number[] },
    get: { before: [] as number[], after: [] as number[] },
    p99: { before: [] as number[], after: [] as number[] },
    put: { before: [] as number[], after: [] as number[] },
  };
  let errors = 0;
  try {
    const tokens = { before: await services.before.token('bench'), after: await services.after.token('bench') };
    for (let round = 0; round < ROUNDS; round++) {
      for (const side of ['before', 'after'] as const) {
        const service = services[side];
        const token = tokens[side];
        const created = await load(`${service.api}/videos`, 'POST', token);
        const { body: video } = await service.call('POST', '/videos', { token });
        const got = await load(`${service.api}/videos/${video._id}`, 'GET', token);
        samples.create[side].push(created.rps);
        samples.get[side].push(got.rps);
        samples.p99[side].push(got.p99);
        errors += created.errors + got.errors;
        const { url } = await singleUrl(service, token);
        const start = performance.now();
        await putRange(url, file, 0, GiB);
        samples.put[side].push(mbps(GiB, performance.now() - start));
      }
    }
  } finally {
    await Promise.all(
      Object.values(services).map((s) => s.stop().then(() => rm(s.data, { recursive: true, force: true }))),
    );
    await mkdir(dir, { recursive: true });
    await rm(dir, { recursive: true, force: true });
  }
  const row = (label: string, xs: { before: number[]; after: number[] }, unit: string, target: string, digits = 0) => {
    const [b, a] = [median(xs.before), median(xs.after)];
    return [label, `${a.toFixed(digits)} ${unit}`, `${b.toFixed(digits)} ${unit}`, (a / b).toFixed(2), target];
  };
  console.log(
    `\nThe API before (${BEFORE}, hand-written router) and after (Fastify + TypeBox), loopback, medians of ${ROUNDS} interleaved samples`,
  );
  console.log(
    table([
      ['measure', 'after', 'before', 'after/before', 'target'],
      row('#1 POST /videos', samples.create, 'req/s', ''),
      row('#8 GET /videos/{id}', samples.get, 'req/s', ''),
      row('#8 p99 latency', samples.p99, 'ms', '', 1),
      row('1 GiB single PUT (storage origin)', samples.put, 'MB/s', '≥ 0.95'),
    ]),
  );
  console.log(`non-2xx or failed requests during the load: ${errors}`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
