/**
 * /readyz of a process on an S3 store (issue 30, item 4: "/healthz and /readyz for each role") checks the store too: a
 * worker or an API process whose bucket is gone is not ready, and says so without naming the store's address.
 */
import { CreateBucketCommand, DeleteBucketCommand, S3Client } from '@aws-sdk/client-s3';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { scaleEngines } from '../helpers/engines/environment.js';
import { startService, type RunningService } from '../helpers/service.js';

const { endpoint, region, credentials } = scaleEngines().s3;

describe('/readyz on an S3 store', () => {
  const bucket = `ready-${randomBytes(4).toString('hex')}`;
  const s3 = new S3Client({ endpoint, region, credentials, forcePathStyle: true });
  let service: RunningService;

  before(async () => {
    service = await startService({
      args: ['--storage', `s3://${bucket}`, '--s3-endpoint', endpoint, '--s3-path-style', '--role', 'worker'],
    });
  });

  after(async () => {
    await service?.stop();
    await s3.send(new DeleteBucketCommand({ Bucket: bucket })).catch(() => undefined);
    s3.destroy();
  });

  /** /readyz until `ready` is what it says (its store check is answered from a result up to 5 s old). */
  async function readyz(ready: boolean) {
    const giveUpAt = Date.now() + 30_000;
    for (;;) {
      const res = await fetch(`${service.api}/readyz`);
      const body = (await res.json()) as { checks: { name: string; ok: boolean; reason?: string }[] };
      if ((res.status === 200) === ready || Date.now() > giveUpAt) return { status: res.status, body };
      await sleep(500);
    }
  }

  it('is ready while the bucket answers, not ready without it (saying why, not where), and ready once it is back', async () => {
    const up = await readyz(true);
    assert.equal(up.status, 200);
    assert.deepEqual(
      up.body.checks.find((c) => c.name === 'store'),
      { name: 'store', ok: true },
    );

    await s3.send(new DeleteBucketCommand({ Bucket: bucket }));
    const down = await readyz(false);
    assert.equal(down.status, 503);
    assert.deepEqual(
      down.body.checks.find((c) => c.name === 'store'),
      { name: 'store', ok: false, reason: 'the bucket does not exist' },
    );
    assert.ok(!JSON.stringify(down.body).includes(new URL(endpoint).port), "the store's address is not shown");

    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    assert.equal((await readyz(true)).status, 200);
  });
});
