import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ERROR_CODES } from '../../src/api/contract.js';
import { startWithToken, type RunningService } from '../helpers/service.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

interface Operation {
  operationId: string;
  summary: string;
  responses: Record<string, { content?: Record<string, { schema: { $ref?: string } }> }>;
  'x-token-scopes'?: string[];
}

/** The generated document (/openapi.json) is a contract a client can be built from, and lint clean. */
describe('the OpenAPI document', () => {
  let service: RunningService;
  let doc: {
    openapi: string;
    paths: Record<string, Record<string, Operation>>;
    components: { schemas: Record<string, any> };
  } & Record<string, any>;
  let dir: string;
  before(async () => {
    ({ service } = await startWithToken('acme'));
    doc = (await service.call('GET', '/openapi.json')).body;
    // Inside the project, so the check below imports the element's own modules.
    dir = join(ROOT, 'test/.generated', String(process.pid));
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'openapi.json'), JSON.stringify(doc));
  });
  after(async () => {
    await service.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ path, method, op })),
    );

  it('is OpenAPI 3.1; every operation has an operationId named for what it does, and its errors use the one error schema', () => {
    assert.equal(doc.openapi, '3.1.0');
    const ids = operations().map(({ op }) => op.operationId);
    assert.ok(ids.length >= 35, `${ids.length} operations`);
    assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
    for (const { path, method, op } of operations()) {
      const where = `${method.toUpperCase()} ${path}`;
      assert.match(op.operationId ?? '', /^[a-z]+[A-Z][A-Za-z]*$/, `${where}: operationId ${op.operationId}`);
      assert.ok(op.summary, `${where}: summary`);
      const failures = Object.entries(op.responses).filter(([status]) => Number(status) >= 400);
      assert.ok(failures.length > 0, `${where} documents its errors`);
      for (const [status, answer] of failures) {
        assert.equal(
          answer.content?.['application/json']?.schema.$ref,
          '#/components/schemas/Error',
          `${where} ${status}`,
        );
      }
    }
    for (const [id, path] of [
      ['createVideo', '/videos'],
      ['getChunkUploadUrl', '/videos/multipart-upload/get-chunk-upload-url'],
      ['completeMultipartUpload', '/videos/multipart-upload/complete'],
    ]) {
      assert.ok(
        operations().some((o) => o.op.operationId === id && o.path === path),
        `${id} is ${path}`,
      );
    }
  });

  it("names each of the spec's endpoints by its number, and its error codes are the service's one table", () => {
    const summaries =
      operations()
        .map(({ op }) => op.summary)
        .join('\n') + doc['x-storage-origin'].description;
    for (let n = 1; n <= 11; n++) assert.match(summaries, new RegExp(`#${n}\\b`), `#${n}`);
    assert.deepEqual(doc.components.schemas.Error.properties.error.properties.code.enum, ERROR_CODES);
  });

  it('says which token scopes each operation takes: keys everything, browser tokens what a browser needs', () => {
    const scopes = (id: string) => operations().find((o) => o.op.operationId === id)?.op['x-token-scopes'];
    assert.deepEqual(scopes('createVideo'), ['key', 'upload']);
    assert.deepEqual(scopes('listTemporaryRecordings'), ['key', 'clip']);
    assert.deepEqual(scopes('rotateStreamKey'), ['key']);
    assert.deepEqual(scopes('createToken'), ['key']);
    assert.deepEqual(scopes('getRecordingPlaylist'), []);
    for (const { op, path } of operations())
      assert.ok(Array.isArray(op['x-token-scopes']) || path.startsWith('/__test__') || path === '/openapi.json', path);
  });

  it('passes `redocly lint` with its recommended rules: no error, no warning', async () => {
    const result = await run(
      join(ROOT, 'node_modules/.bin/redocly'),
      ['lint', join(dir, 'openapi.json'), '--format=json', '--extends=recommended'],
      { cwd: dir },
    ).catch((e) => e);
    const report = JSON.parse(result.stdout.slice(result.stdout.indexOf('{'))) as {
      totals: { errors: number; warnings: number };
      problems: { ruleId: string; message: string }[];
    };
    const problems = report.problems.map((p) => `${p.ruleId}: ${p.message}`).join('\n');
    assert.equal(report.totals.errors, 0, problems);
    assert.equal(report.totals.warnings, 0, problems);
  });

  it('gives a client (openapi-typescript) whose types are exactly what the element sends and expects', async () => {
    await run(join(ROOT, 'node_modules/.bin/openapi-typescript'), [
      join(dir, 'openapi.json'),
      '-o',
      join(dir, 'api.d.ts'),
    ]);
    await writeFile(
      join(dir, 'check.ts'),
      `import type { paths } from './api.js';
import type { VideoServiceClient } from '../../../src/api/client.js';
import type { AbortRequest, ChunkUrlRequest, CompleteRequest, CreateVideoRequest, ImportRequest } from '../../../src/api/types.js';

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type Op<P extends keyof paths, M extends string> = M extends keyof paths[P] ? paths[P][M] : never;
type Ok<P extends keyof paths, M extends string> = Op<P, M> extends { responses: { 200: infer R } }
  ? Json<R>
  : Op<P, M> extends { responses: { 202: infer R } }
    ? Json<R>
    : never;
type Body<P extends keyof paths, M extends string> = Op<P, M> extends { requestBody?: infer B } ? Json<NonNullable<B>> : never;
type Returns<K extends keyof VideoServiceClient> = VideoServiceClient[K] extends (...a: never[]) => Promise<infer R> ? R : never;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

// Each call the element makes: what it expects back, and what it sends, against the generated client.
export const answers: [
  Same<Returns<'createVideo'>, Ok<'/videos', 'post'>>,
  Same<Returns<'getUploadUrl'>, Ok<'/videos/{id}/uploads', 'post'>>,
  Same<Returns<'beginMultipart'>, Ok<'/videos/{id}/multipart-upload/begin', 'post'>>,
  Same<Returns<'getChunkUploadUrl'>, Ok<'/videos/{id}/multipart-upload/get-chunk-upload-url', 'post'>>,
  Same<Returns<'completeMultipart'>, Ok<'/videos/{id}/multipart-upload/complete', 'post'>>,
  Same<Returns<'abortMultipart'>, Ok<'/videos/multipart-upload/abort', 'post'>>,
  Same<Returns<'getVideo'>, Ok<'/videos/{id}', 'get'>>,
  Same<Returns<'importVideo'>, Ok<'/videos/{id}/import', 'post'>>,
] = [true, true, true, true, true, true, true, true];
export const bodies: [
  Same<CreateVideoRequest, Body<'/videos', 'post'>>,
  Same<ChunkUrlRequest, Body<'/videos/{id}/multipart-upload/get-chunk-upload-url', 'post'>>,
  Same<CompleteRequest, Body<'/videos/{id}/multipart-upload/complete', 'post'>>,
  Same<AbortRequest, Body<'/videos/multipart-upload/abort', 'post'>>,
  Same<ImportRequest, Body<'/videos/{id}/import', 'post'>>,
] = [true, true, true, true, true];
`,
    );
    await writeFile(
      join(dir, 'tsconfig.json'),
      JSON.stringify({ extends: '../../../tsconfig.json', include: ['check.ts'], exclude: [] }),
    );
    const result = await run(join(ROOT, 'node_modules/.bin/tsc'), ['--noEmit', '-p', join(dir, 'tsconfig.json')], {
      cwd: ROOT,
    }).catch((e) => e);
    assert.equal(result.code ?? 0, 0, `${result.stdout}${result.stderr}`);
  });
});
