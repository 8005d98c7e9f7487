import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SERVICE_FLAGS } from '../../service/flags.js';
import { DEFAULT_PORTS } from '../../service/ports.js';
import { DEFAULTS } from '../../service/settings.js';
import { startService, type RunningService } from '../helpers/service.js';

/**
 * Flags change the service's limits, and its /openapi.json says what it runs with: a client reading the document
 * of a service started with `--merge-window-seconds 120` learns two minutes, not the default.
 */
describe('the OpenAPI document of a service started with other limits', () => {
  let service: RunningService;
  let doc: { paths: Record<string, Record<string, { operationId: string; description?: string }>> } & Record<
    string,
    any
  >;
  /** An operation's description, by its operationId. */
  const described = (id: string) =>
    Object.values(doc.paths)
      .flatMap((ops) => Object.values(ops))
      .find((op) => op.operationId === id)!.description!;

  before(async () => {
    service = await startService({
      // Each unlike its default (service/settings.ts), so a description left at the default shows.
      args: [
        ...['--merge-window-seconds', '120', '--max-open-uploads-per-user', '7', '--max-queued-per-user', '3'],
        ...['--chunk-url-rate-limit-per-minute', '99', '--min-free-mb', '1', '--stall-timeout-seconds', '45'],
        ...['--rtmp-publish-within-seconds', '7', '--max-conversions-per-stream', '6', '--max-duration-seconds', '600'],
        ...['--import-max-mb', '3', '--import-idle-timeout-seconds', '12'],
      ],
    });
    doc = (await service.call('GET', '/openapi.json')).body;
  });
  after(() => service.stop());

  it('states the merge window it runs with (#9 and the new stream key)', () => {
    for (const id of ['listTemporaryRecordings', 'rotateStreamKey']) {
      assert.match(described(id), /merge window \(2 min, `--merge-window-seconds`\)/, id);
      assert.doesNotMatch(described(id), /1 min/, id);
    }
  });

  it('states the caps on uploads, queued work, chunk URLs and conversions it runs with', () => {
    assert.match(described('createVideo'), /may hold at most 7 videos waiting/);
    assert.match(described('getUploadUrl'), /upload token 3 \(--max-queued-per-user\)/);
    assert.match(described('beginMultipartUpload'), /at most 7 multipart sessions/);
    assert.match(described('getChunkUploadUrl'), /99 a minute per token/);
    assert.match(described('convertTemporaryRecording'), /At most 6 conversions under way per live stream/);
  });

  it('states the media, import, disk and storage limits it runs with', () => {
    assert.match(described('createVideo'), /up to 10 min long \(`--max-duration-seconds`\)/);
    assert.match(described('convertTemporaryRecording'), /takes \(10 min, `--max-duration-seconds`\)/);
    assert.match(described('importVideo'), /--import-max-mb, 3 MiB/);
    assert.match(described('importVideo'), /--import-idle-timeout-seconds, 12 s/);
    assert.match(described('getUploadUrl'), /`--min-free-mb`, 1 MiB/);
    assert.match(doc['x-storage-origin'].description, /`--min-free-mb`, 1 MiB/);
    assert.match(doc['x-storage-origin'].description, /nothing for 45 s \(`--stall-timeout-seconds`\)/);
    assert.match(doc['x-rtmp-ingest'].description, /publish within 7 s \(`--rtmp-publish-within-seconds`\)/);
  });

  it('prints its help with every flag and the default a service started without it runs with', async () => {
    const help = await service.cli('--help');
    for (const [name, flag] of Object.entries(SERVICE_FLAGS)) {
      const shown =
        flag.type === 'boolean' || name === 'data' || name === 'database' || !('default' in flag)
          ? `[--${name}`
          : `[--${name} ${flag.default}]`;
      assert.ok(help.includes(shown), `${shown} in:\n${help}`);
    }
    for (const shown of [
      `[--port ${DEFAULT_PORTS.api}]`,
      `[--merge-window-seconds ${DEFAULTS.mergeWindowMs / 1000}]`,
      `[--max-open-uploads-per-user ${DEFAULTS.openUploadCaps.perUser}]`,
      '[--role all]',
      '--role all|api|worker|ingest',
    ])
      assert.ok(help.includes(shown), `${shown} in:\n${help}`);
  });
});
