import { expect } from '@open-wc/testing';
import { OptionError, parseSize, resolveOptions } from '../../src/options.js';
import { MAX_CHUNKS } from '../../src/api/limits.js';
import { MIN_CHUNK_BYTES, planUpload } from '../../src/upload/plan.js';

const MiB = 1024 ** 2;
const GiB = 1024 ** 3;

describe('attribute parsing', () => {
  it('reads sizes with units, binary, case-insensitive, with or without a space', () => {
    expect(parseSize('x', '100MB')).to.equal(100 * MiB);
    expect(parseSize('x', '5 GB')).to.equal(5 * GiB);
    expect(parseSize('x', '1.5gib')).to.equal(1.5 * GiB);
    expect(parseSize('x', '64k')).to.equal(64 * 1024);
    expect(parseSize('x', '1048576')).to.equal(MiB);
  });

  it('refuses bad sizes with a message that names the attribute and the value', () => {
    for (const bad of ['', 'big', '10 parsecs', '-5MB', '0', '1e9', 'MB']) {
      expect(() => parseSize('chunk-size', bad), bad).to.throw(OptionError, `chunk-size="${bad}"`);
    }
  });

  it('refuses a chunk size of 5GB or more, bad counts, bad accept lists and a missing base-url', () => {
    const base = { baseUrl: 'http://127.0.0.1:1' };
    expect(() => resolveOptions({ ...base, chunkSize: '5GB' })).to.throw('chunk-size="5GB"');
    expect(() => resolveOptions({ ...base, parallelUploads: '0' })).to.throw('parallel-uploads="0"');
    expect(() => resolveOptions({ ...base, parallelUploads: 'four' })).to.throw('parallel-uploads="four"');
    expect(() => resolveOptions({ ...base, maxFiles: '2.5' })).to.throw('max-files="2.5"');
    expect(() => resolveOptions({ ...base, accept: 'video/*, <script>' })).to.throw('accept=');
    expect(() => resolveOptions({})).to.throw('base-url=""');
    expect(() => resolveOptions({ baseUrl: 'ftp://example.com' })).to.throw('base-url="ftp://example.com"');
    expect(() => resolveOptions({ baseUrl: 'api.example.com' })).to.throw('base-url="api.example.com"');
    expect(resolveOptions({ baseUrl: '/video-api/' }).baseUrl).to.equal(`${location.origin}/video-api`);
  });

  it('adapts its parallelism unless parallel-uploads is set, up to max-parallel-uploads (12 by default, 1–32)', () => {
    const base = { baseUrl: 'http://127.0.0.1:1' };
    expect(resolveOptions(base)).to.include({ parallelUploads: null, maxParallelUploads: 12 });
    expect(resolveOptions({ ...base, parallelUploads: 4, maxParallelUploads: '20' })).to.include({
      parallelUploads: 4,
      maxParallelUploads: 20,
    });
    for (const bad of ['0', '33', 'many'])
      expect(() => resolveOptions({ ...base, maxParallelUploads: bad })).to.throw(`max-parallel-uploads="${bad}"`);
  });

  it('defaults to multipart from 64 MiB (what the link bench measured), video files accepted, including .mkv and .ts', () => {
    const options = resolveOptions({ baseUrl: 'http://127.0.0.1:1/' });
    expect(options.baseUrl).to.equal('http://127.0.0.1:1');
    expect(options.multipartThreshold).to.equal(64 * MiB);
    expect(options.accept).to.include.members([
      'video/*',
      '.mkv',
      '.ts',
      '.mts',
      '.m2ts',
      '.flv',
      '.avi',
      '.wmv',
      '.mov',
    ]);
  });
});

describe('upload plan', () => {
  it('sends files under the threshold by the signed link, and at it in chunks', () => {
    expect(planUpload(100 * MiB - 1, 100 * MiB, 32 * MiB).method).to.equal('single');
    const plan = planUpload(100 * MiB, 100 * MiB, 32 * MiB);
    expect(plan).to.deep.equal({ method: 'multipart', chunkSize: 32 * MiB, chunks: 4 });
  });

  it('raises the chunk size so that no file needs more than 10,000 chunks', () => {
    const size = 200 * GiB;
    const plan = planUpload(size, 5 * GiB, 5 * MiB);
    expect(plan.chunks).to.be.at.most(MAX_CHUNKS);
    expect(plan.chunkSize).to.be.at.least(Math.ceil(size / MAX_CHUNKS));
    expect(plan.chunkSize % MiB).to.equal(0);
    expect(plan.chunkSize * plan.chunks).to.be.at.least(size);
  });

  it('never cuts chunks below the 5 MiB that @uppy/aws-s3 needs, nor at 5GB or above', () => {
    expect(planUpload(50 * MiB, MiB, MiB).chunkSize).to.equal(MIN_CHUNK_BYTES);
    expect(planUpload(5 * MiB, MiB, MiB).method).to.equal('single');
    expect(() => planUpload(60_000 * GiB, MiB, MiB)).to.throw(/5 GB/);
  });
});
