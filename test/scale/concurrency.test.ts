/**
 * Two service processes at once on one PostgreSQL database (the run's, a fresh database for each pair) and one data
 * folder, requests raced at both: each rule docs/scale.md ("How each of the domain's rules stays correct with
 * concurrent processes") says now holds in the database, checked the way a user relies on it. Each rule is raced
 * many times, with the two requests leaving a few milliseconds apart, more or less, so that one round or another
 * lands in the narrow window between a check and its write. The pairs run `--role api` where the rule is the
 * API's (no worker takes the queued jobs: what the race queued is what the test counts), and `all` where the
 * sweeper and live recordings take part.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { MAX_WEBHOOKS } from '../../src/api/limits.js';
import { S3Store } from '../../service/storage/s3.js';
import { freshDatabase } from '../helpers/engines/cluster.js';
import { scaleEngines } from '../helpers/engines/environment.js';
import { createStream, push } from '../helpers/live.js';
import { completeMultipart, put, startService, tempData, type RunningService } from '../helpers/service.js';

const engines = scaleEngines();
/** Races per rule: with the two sides shifted a little each round, enough to land in any window a guard closes. */
const ROUNDS = 20;
/** How far apart the two sides of a round leave, in ms (negative: the second first), cycling over the rounds. */
const offset = (round: number) => ((round % 9) - 4) * 2;
/** Runs `first` and `second` at once, the later of the two `ms` later. */
async function race<A, B>(ms: number, first: () => Promise<A>, second: () => Promise<B>): Promise<[A, B]> {
  const later = async <T>(wait: number, f: () => Promise<T>) => {
    if (wait > 0) await sleep(wait);
    return f();
  };
  return Promise.all([later(-ms, first), later(ms, second)]);
}

interface Pair {
  a: RunningService;
  b: RunningService;
  database: string;
  data: string;
  token(org: string): Promise<string>;
  query<T = any>(text: string, values?: unknown[]): Promise<T[]>;
  stop(): Promise<void>;
}

/** Two processes of the service, `args` each, on a fresh database of the run's PostgreSQL and one data folder. */
async function startPair(args: string[]): Promise<Pair> {
  const database = await freshDatabase(engines.databaseUrl, 'race');
  const data = await tempData();
  const options = { data, args: ['--database', database, '--allow-private-network', ...args] };
  // At once: migrations on PostgreSQL run under a lock, so the second waits for the first's schema.
  const [a, b] = await Promise.all([startService(options), startService(options)]);
  const pool = new pg.Pool({ connectionString: database, max: 2 });
  return {
    a,
    b,
    database,
    data,
    token: (org) => a.cli('token', '--org', org, '--database', database),
    query: async (text, values) => (await pool.query(text, values)).rows,
    async stop() {
      await Promise.all([a.stop(), b.stop()]);
      await pool.end();
    },
  };
}

/** The jobs queued for a video, by kind (their payload names it). */
async function jobsOf(pair: Pair, videoId: string): Promise<string[]> {
  const rows = await pair.query<{ kind: string }>('SELECT kind FROM jobs WHERE payload LIKE $1 ORDER BY kind', [
    `%${videoId}%`,
  ]);
  return rows.map((r) => r.kind);
}

describe('two API processes raced on one PostgreSQL database', () => {
  let pair: Pair;

  before(async () => {
    // Caps far above what a round makes: the rules raced here are not the caps (but for the webhooks').
    pair = await startPair(['--role', 'api', '--allow-any-port', '--max-queued-per-organization', '10000']);
  });

  after(async () => {
    await pair?.stop();
  });

  it('two `token` commands at once for a new organization make one organization, whose keys all see its videos', async () => {
    // Each command is a process of its own (a few seconds to start on a busy machine): two rounds of three.
    for (let round = 0; round < 2; round++) {
      const org = `token-race-${round}`;
      const keys = await Promise.all(Array.from({ length: 3 }, () => pair.token(org)));
      const orgs = await pair.query('SELECT id FROM organizations WHERE name = $1', [org]);
      assert.equal(orgs.length, 1, `round ${round}: organizations named ${org}`);
      const users = await pair.query('SELECT id FROM users WHERE organization_id = $1', [orgs[0].id]);
      assert.equal(users.length, 1, `round ${round}: its users`);
      const { body: video } = await pair.a.call('POST', '/videos', { token: keys[0] });
      for (const key of keys)
        assert.equal((await pair.b.call('GET', `/videos/${video._id}`, { token: key })).status, 200);
    }
  });

  it('never lets webhooks asked of both at once pass the cap of an organization', async () => {
    for (let round = 0; round < 2; round++) {
      const key = await pair.token(`webhook-race-${round}`);
      const answers = await Promise.all(
        [pair.a, pair.b].flatMap((s, i) =>
          Array.from({ length: MAX_WEBHOOKS }, (_, n) =>
            s.call('POST', '/webhooks', { token: key, body: { url: `http://127.0.0.1:9/hook-${i}-${n}` } }),
          ),
        ),
      );
      const made = answers.filter((r) => r.status === 200).length;
      assert.equal(made, MAX_WEBHOOKS, `round ${round}: ${answers.map((r) => r.status).join(' ')}`);
      assert.ok(answers.every((r) => r.status === 200 || r.body.error?.code === 'too_many_webhooks'));
      const { body: listed } = await pair.b.call('GET', '/webhooks', { token: key });
      assert.equal(listed.length, MAX_WEBHOOKS);
    }
  });

  /** A new video and a multipart session of it at A, with the links of chunks 1..n. */
  async function session(key: string, n: number) {
    const { body: video } = await pair.a.call('POST', '/videos', { token: key });
    const { body: begun } = await pair.a.call('POST', `/videos/${video._id}/multipart-upload/begin`, { token: key });
    const links: string[] = [];
    for (let chunkId = 1; chunkId <= n; chunkId++) {
      const { body } = await pair.a.call('POST', `/videos/${video._id}/multipart-upload/get-chunk-upload-url`, {
        token: key,
        body: { key: begun.key, chunkId },
      });
      links.push(body.url);
    }
    return { videoId: video._id as string, key: begun.key as string, links };
  }
  const chunkRows = async (key: string) =>
    (await pair.query('SELECT chunk_id FROM chunks WHERE session_key = $1 ORDER BY chunk_id', [key])).map((r) =>
      Number(r.chunk_id),
    );
  const chunkFiles = async (key: string) => readdir(join(pair.data, 'chunks', key)).catch(() => [] as string[]);
  const CHUNK = new Uint8Array(64 * 1024);

  it('a chunk stored while #7 aborts its session at the other process: nothing of the session is left', async () => {
    const key = await pair.token('abort-race');
    for (let round = 0; round < ROUNDS; round++) {
      const upload = await session(key, 6);
      const [aborted, puts] = await race(
        offset(round),
        () => pair.b.call('POST', '/videos/multipart-upload/abort', { token: key, body: { key: upload.key } }),
        () => Promise.all(upload.links.map((url) => put(url, CHUNK.fill(round)))),
      );
      assert.equal(aborted.status, 200, JSON.stringify(aborted.body));
      for (const p of puts)
        assert.ok(p.status === 200 || p.status === 409, `round ${round}: PUT ${p.status} ${p.text}`);
      // Every chunk stored before the abort went with it; every one after found the session closed.
      assert.deepEqual(await chunkRows(upload.key), [], `round ${round}: chunk rows of the aborted session`);
      assert.deepEqual(await chunkFiles(upload.key), [], `round ${round}: chunk files of the aborted session`);
    }
  });

  it('chunks stored while #6 completes the session at the other process: the source is the chunks #6 listed', async () => {
    const key = await pair.token('complete-chunk-race');
    for (let round = 0; round < ROUNDS; round++) {
      const upload = await session(key, 6);
      const first = await put(upload.links[0]!, CHUNK.fill(round));
      assert.equal(first.status, 200);
      // #6 lists chunk 1 alone, while chunks 2..6 are being stored at A's storage.
      const [completed, puts] = await race(
        offset(round),
        () => completeMultipart(pair.b, key, upload.key, [first.etag]),
        () => Promise.all(upload.links.slice(1).map((url) => put(url, CHUNK.fill(round + 1)))),
      );
      assert.equal(completed.status, 200, JSON.stringify(completed.body));
      for (const p of puts)
        assert.ok(p.status === 200 || p.status === 409, `round ${round}: PUT ${p.status} ${p.text}`);
      // What processing will join into the source: chunk 1, which #6 listed, and nothing stored around it.
      assert.deepEqual(await chunkRows(upload.key), [1], `round ${round}: chunk rows of the completed session`);
      assert.equal((await chunkFiles(upload.key)).length, 1, `round ${round}: chunk files of the completed session`);
      assert.deepEqual(await jobsOf(pair, upload.videoId), ['process-video']);
    }
  });

  it('a signed link’s PUT and an import of the same video at once: the video takes one file, once', async () => {
    const key = await pair.token('file-race');
    const body = new Uint8Array(128 * 1024);
    const wins = { put: 0, import: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      const { body: video } = await pair.a.call('POST', '/videos', { token: key });
      const { body: link } = await pair.a.call('POST', `/videos/${video._id}/uploads`, { token: key });
      const [uploaded, imported] = await race(
        offset(round),
        () => put(link.url, body.fill(round)),
        // Never downloaded: no process here runs jobs, and what the race queued is what is counted.
        () =>
          pair.b.call('POST', `/videos/${video._id}/import`, { token: key, body: { url: 'http://127.0.0.1:9/a.mp4' } }),
      );
      const putWon = uploaded.status === 200;
      assert.notEqual(
        putWon,
        imported.status === 202,
        `round ${round}: PUT ${uploaded.status}, import ${imported.status}`,
      );
      if (putWon) assert.equal(imported.body.error.code, 'already_uploaded');
      else assert.equal(uploaded.status, 409, uploaded.text);
      wins[putWon ? 'put' : 'import']++;
      assert.deepEqual(await jobsOf(pair, video._id), [putWon ? 'process-video' : 'import-video'], `round ${round}`);
      // The PUT's body is the source only if the PUT won; an import writes its own once it runs.
      assert.equal(existsSync(join(pair.data, 'videos', video._id, 'source')), putWon, `round ${round}: the source`);
    }
    // Both ways won some rounds: the race was a race.
    assert.ok(wins.put > 0 && wins.import > 0, JSON.stringify(wins));
  });
});

describe('two API processes on one S3 store: #8 at both notices one upload once', () => {
  let pair: Pair;
  const prefix = `race-${randomBytes(4).toString('hex')}`;

  before(async () => {
    const { endpoint, bucket } = engines.s3;
    const storage = ['--storage', `s3://${bucket}/${prefix}`, '--s3-endpoint', endpoint, '--s3-path-style'];
    pair = await startPair(['--role', 'api', ...storage]);
  });

  after(async () => {
    await pair?.stop();
    const { endpoint, region, credentials, bucket } = engines.s3;
    const store = new S3Store({ bucket, prefix, endpoint, region, forcePathStyle: true, credentials });
    await store.deletePrefix('').catch(() => undefined);
    store.destroy();
  });

  it('processes a file PUT to the store once, however many processes see it at once', async () => {
    const key = await pair.token('seen-race');
    for (let round = 0; round < ROUNDS; round++) {
      const { body: video } = await pair.a.call('POST', '/videos', { token: key });
      const { body: link } = await pair.a.call('POST', `/videos/${video._id}/uploads`, { token: key });
      const stored = await put(link.url, new Uint8Array(4096).fill(round));
      assert.equal(stored.status, 200, stored.text);
      const seen = await race(
        offset(round),
        () => pair.a.call('GET', `/videos/${video._id}`, { token: key }),
        () => pair.b.call('GET', `/videos/${video._id}`, { token: key }),
      );
      // A #8 that meets the other process taking the upload in (its copy to the source, under the video's claim)
      // says what is so at that moment: still waiting. Once that one answers, the video is processing, once.
      for (const r of seen) assert.ok(['waiting', 'processing'].includes(r.body.status), JSON.stringify(r.body));
      const { body: after } = await pair.b.call('GET', `/videos/${video._id}`, { token: key });
      assert.equal(after.status, 'processing', `round ${round}`);
      assert.deepEqual(await jobsOf(pair, video._id), ['process-video'], `round ${round}`);
    }
  });
});

describe('two whole processes with live recordings and their sweepers on one PostgreSQL database', () => {
  let pair: Pair;
  let key: string;
  let streams: Awaited<ReturnType<typeof createStream>>[];
  let recordings: any[];
  const PER_TOKEN = 2;
  /** Long enough that no recording completes before the test that moves both clocks past it. */
  const MERGE_WINDOW_SECONDS = 3600;

  before(async () => {
    pair = await startPair([
      ...['--merge-window-seconds', String(MERGE_WINDOW_SECONDS)],
      ...['--max-conversions-per-token', String(PER_TOKEN), '--max-conversions-per-stream', '100'],
    ]);
    key = await pair.token('live-race');
    // Three recordings, pushed to A's ingest at once as fast as ffmpeg makes them; every one stops.
    streams = await Promise.all(['one', 'two', 'three'].map((name) => createStream(pair.a, key, name)));
    const codes = await Promise.all(streams.map((s) => push(s.ingest.url, 4, { realTime: false })));
    assert.deepEqual(codes, [0, 0, 0]);
    recordings = await Promise.all(streams.map((s) => s.waitFor('the push to stop', (r) => r.status === 'stopped')));
  });

  after(async () => {
    await pair?.stop();
  });

  /** #10 of a part `from` seconds into the first recording, a second long, asked of `service` with `token`. */
  const convert = (service: RunningService, from: number, token = key) =>
    service.call('POST', `/live_streams/${streams[0]!._id}/temporary_recordings/${recordings[0]._id}`, {
      token,
      body: { from: new Date(Date.parse(recordings[0].start_time) + from * 1000).toISOString(), duration: 1 },
    });
  const exports = () =>
    pair.query<{ from_at: number; n: number }>(
      'SELECT from_at, COUNT(*)::int AS n FROM exports WHERE recording_id = $1 GROUP BY from_at',
      [recordings[0]._id],
    );

  it('never lets conversions asked of both at once pass the cap of a token', async () => {
    // Eight different parts, four asked of each process: the token may have two under way.
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => convert(i % 2 ? pair.b : pair.a, 0.25 * i)));
    const made = answers.filter((r) => r.status === 200);
    assert.equal(made.length, PER_TOKEN, answers.map((r) => `${r.status} ${r.body.error?.code ?? ''}`).join(', '));
    assert.ok(answers.every((r) => r.status === 200 || r.body.error?.code === 'limit_reached'));
    assert.equal((await exports()).length, PER_TOKEN);
  });

  it('makes one conversion of a part asked of both at once, and answers every ask with it', async () => {
    const before = (await exports()).length;
    // A clip token of its own (the key's conversions are at its cap), as a clipping element in a browser has.
    const { body: minted } = await pair.a.call('POST', '/tokens', {
      token: key,
      body: { scope: 'clip', live_stream_id: streams[0]!._id },
    });
    // Two new parts (the token's cap), each asked twice of each process, all at once.
    const parts = [2.3, 2.7];
    const answers = await Promise.all(
      parts.flatMap((from) => [pair.a, pair.b, pair.a, pair.b].map((s) => convert(s, from, minted.token))),
    );
    assert.ok(
      answers.every((r) => r.status === 200),
      answers.map((r) => `${r.status} ${r.body.error?.code ?? ''}`).join(', '),
    );
    const rows = await exports();
    assert.equal(rows.length, before + parts.length, JSON.stringify(rows));
    assert.ok(
      rows.every((r) => r.n === 1),
      `a part converted more than once: ${JSON.stringify(rows)}`,
    );
    for (let i = 0; i < parts.length; i++) {
      const asked = answers.slice(i * 4, i * 4 + 4).map((r) => JSON.stringify(r.body));
      assert.equal(new Set(asked).size, 1, asked.join('\n'));
    }
  });

  it('holds the sweeper in one process at a time, whichever is asked to sweep', async () => {
    const pids = [pair.a.process.pid, pair.b.process.pid];
    const holders = new Set<string>();
    for (let i = 0; i < ROUNDS; i++) {
      await Promise.all([pair.a.sweep(), pair.b.sweep()]);
      const rows = await pair.query("SELECT holder FROM leases WHERE name = 'sweeper'");
      assert.equal(rows.length, 1);
      holders.add(rows[0].holder);
    }
    assert.equal(holders.size, 1, `the sweeper changed hands while both ran: ${[...holders].join(', ')}`);
    const [holder] = holders;
    // `<pid space>:<host>:<pid>:<random>` (leases.ts, holderName).
    assert.ok(pids.includes(Number(holder!.split(':')[2])), `${holder} is neither of ${pids.join(', ')}`);
  });

  it('finishes each stopped recording once while both processes sweep at once', async () => {
    // Past the merge window on both processes' clocks at once; then both sweep, again and again, at once.
    const past = (MERGE_WINDOW_SECONDS + 1) * 1000;
    for (const stream of streams) assert.equal((await stream.list())[0].status, 'stopped', 'complete before the race');
    await Promise.all([pair.a.advanceClock(past), pair.b.advanceClock(past)]);
    for (let i = 0; i < 5; i++) await Promise.all([pair.a.sweep(), pair.b.sweep()]);
    for (const [i, stream] of streams.entries()) {
      await stream.waitFor('the recording to be complete', (r) => r.status === 'complete', 0, 120_000);
      const jobs = await pair.query("SELECT id FROM jobs WHERE kind = 'finish-recording' AND payload LIKE $1", [
        `%${recordings[i]._id}%`,
      ]);
      assert.equal(jobs.length, 1, `recording ${i}: finish-recording jobs`);
    }
  });
});
