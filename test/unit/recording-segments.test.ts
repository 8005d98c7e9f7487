/**
 * The segments of a live part on a store, as the ingest node records them in the database (issue 30, item 3;
 * domain/recordings.ts): what an API process without the part's files serves its playlist from. On both engines.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { systemClock } from '../../service/clock.js';
import { openDatabase, type Db } from '../../service/db/index.js';
import type { StreamRow } from '../../service/domain/live-streams.js';
import { Recordings } from '../../service/domain/recordings.js';
import { Jobs } from '../../service/jobs.js';
import { RecordingMedia } from '../../service/processing/recording-media.js';
import { Files } from '../../service/storage/files.js';
import { startPostgres, type Postgres } from '../helpers/engines/postgres.js';
import { tempDir } from '../helpers/temp.js';

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`a live part's segments in the database (${engine})`, () => {
    let postgres: Postgres | undefined;
    let db: Db;
    let recordings: Recordings;
    before(async () => {
      if (engine === 'postgres') postgres = await startPostgres();
    });
    after(() => postgres?.stop());
    afterEach(() => db?.destroy());

    const fresh = async () => {
      const data = await tempDir('segments-');
      db = await openDatabase(postgres ? await postgres.freshDatabase() : join(data, 'service.db'));
      const clock = systemClock();
      recordings = new Recordings({
        ...{ db, clock, jobs: new Jobs(db, clock), files: new Files(data, 0), media: new RecordingMedia() },
        mergeWindowMs: 60_000,
        apiOrigin: () => 'http://127.0.0.1',
        conversions: { entries: async () => [], forget: async () => undefined },
      });
    };
    const stream = { id: 'stream1', organization_id: 'org1' } as StreamRow;
    const storedBytes = async (id: string) =>
      Number(
        (
          await db
            .selectFrom('recording_parts')
            .select('stored_bytes')
            .where('recording_id', '=', id)
            .executeTakeFirst()
        )?.stored_bytes,
      );

    it('keeps a segment shipped again as one row, its bytes counted once, until the recording goes', async () => {
      await fresh();
      const { recordingId, seq } = await recordings.beginPart(stream, Date.now(), 'node1');
      const first = { seq: 0, file: 'seg00000.ts', duration: 2.002, bytes: 1000 };
      await recordings.addSegment(recordingId, seq, first);
      await recordings.addSegment(recordingId, seq, { seq: 1, file: 'seg00001.ts', duration: 1.5, bytes: 500 });
      // The same segment again (a pass whose row was written though the node did not hear so).
      await recordings.addSegment(recordingId, seq, first);
      assert.deepEqual(await recordings.storedPart(recordingId, seq), {
        segments: [
          { file: 'seg00000.ts', duration: 2.002 },
          { file: 'seg00001.ts', duration: 1.5 },
        ],
        ended: false,
      });
      assert.equal(await storedBytes(recordingId), 1500);

      await recordings.endPart(recordingId, seq, Date.now());
      assert.equal((await recordings.storedPart(recordingId, seq)).ended, true, 'the part has ended');

      await recordings.remove(recordingId);
      const left = await db.selectFrom('recording_segments').selectAll().execute();
      assert.deepEqual(left, [], 'its rows went with it');
    });
  });
}
