import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { startPostgres, type Postgres } from '../helpers/engines/postgres.js';
import { completeMultipart, put, startService, tempData, type RunningService } from '../helpers/service.js';

/**
 * Two service processes on one PostgreSQL database (and one data folder, as two processes of one machine share
 * the local store), requests raced at both: what SQLite's single writer and a process's memory guaranteed must
 * hold when any process may take any request (docs/scale.md, "How each concurrent transaction stays correct").
 */
describe('two service processes on one PostgreSQL', () => {
  let postgres: Postgres;
  let url: string;
  let a: RunningService;
  let b: RunningService;
  /** Each round's requests leave at once: both processes get theirs within the same few milliseconds. */
  const ROUNDS = 8;

  before(async () => {
    postgres = await startPostgres();
    url = await postgres.freshDatabase();
    const data = await tempData();
    const args = ['--database', url, '--max-open-uploads-per-organization', '5'];
    // One after the other: the first migrates, and the second finds the schema made.
    a = await startService({ data, args });
    b = await startService({ data, args });
  });

  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await postgres?.stop();
  });

  const token = (org: string) => a.cli('token', '--org', org, '--database', url);

  it('completes a multipart upload (#6) sent to both at once exactly once; the other gets 409', async () => {
    const key = await token('complete-race');
    for (let round = 0; round < ROUNDS; round++) {
      const { body: video } = await a.call('POST', '/videos', { token: key });
      const { body: session } = await a.call('POST', `/videos/${video._id}/multipart-upload/begin`, { token: key });
      const { body: link } = await a.call('POST', `/videos/${video._id}/multipart-upload/get-chunk-upload-url`, {
        token: key,
        body: { key: session.key, chunkId: 1 },
      });
      const { status, etag } = await put(link.url, new Uint8Array(4096).fill(round));
      assert.equal(status, 200);
      const answers = await Promise.all([a, b].map((s) => completeMultipart(s, key, session.key, [etag])));
      const statuses = answers.map((r) => r.status).sort();
      assert.deepEqual(statuses, [200, 409], `round ${round}: ${JSON.stringify(answers.map((r) => r.body))}`);
      const refused = answers.find((r) => r.status === 409)!.body;
      assert.ok(['session_completing', 'session_closed'].includes(refused.error.code), refused.error.code);
      // Processing was queued once: one job for the video, however the two raced.
      const jobs = await query(`SELECT COUNT(*)::int AS n FROM jobs WHERE kind = 'process-video' AND payload LIKE $1`, [
        `%${video._id}%`,
      ]);
      assert.equal(jobs[0].n, 1, `round ${round}: process-video jobs`);
    }
  });

  it('never lets requests raced at both pass a cap (5 open links per organization)', async () => {
    for (let round = 0; round < 3; round++) {
      const key = await token(`cap-race-${round}`);
      const { body: video } = await a.call('POST', '/videos', { token: key });
      // Twelve at once to each process: a count taken before another's insert would let more than five through.
      const answers = await Promise.all(
        [a, b].flatMap((s) =>
          Array.from({ length: 12 }, () => s.call('POST', `/videos/${video._id}/uploads`, { token: key })),
        ),
      );
      const made = answers.filter((r) => r.status === 200).length;
      assert.equal(made, 5, `round ${round}: ${answers.map((r) => r.status).join(' ')}`);
      assert.ok(answers.every((r) => r.status === 200 || r.body.error?.code === 'limit_reached'));
    }
  });

  async function query(text: string, values: unknown[]): Promise<any[]> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query(text, values)).rows;
    } finally {
      await client.end();
    }
  }
});
