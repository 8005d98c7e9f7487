/**
 * The spec's field tables against the contract: every field the spec names is in the TypeBox schema that
 * carries it, with the type the spec gives. test/service/contract.test.ts checks the service against its own
 * OpenAPI document; this checks that document's source against the spec the service implements.
 *
 * The spec lives outside the repository (../shared/service-spec.md), and CI runs on a clean clone where it may
 * not exist, so the test reads a verbatim copy, docs/spec/service-spec.md. Where the original exists (beside
 * the main checkout), the copy must be byte-identical: a changed spec fails here until the copy is replaced,
 * and then its tables are checked again.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  ChunkDetail,
  ConversionRequest,
  ExportEntry,
  MultipartSession,
  TemporaryRecording,
  UploadUrl,
  Video,
  VideoReadyEvent,
} from '../../src/api/contract.js';
import { AUDIO_FIELDS, GENERAL_FIELDS, VIDEO_FIELDS } from '../../src/api/mediainfo-fields.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const COPY = join(ROOT, 'docs/spec/service-spec.md');

/** ../shared/service-spec.md beside the repository; for a git worktree, beside its main checkout. */
function originalSpec(): string {
  let checkout = ROOT;
  try {
    const common = execFileSync('git', ['rev-parse', '--path-format=absolute', '--git-common-dir'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    checkout = dirname(common.trim());
  } catch {
    // Not a git checkout (an unpacked tarball): beside ROOT, then.
  }
  return resolve(checkout, '../shared/service-spec.md');
}

/** A JSON Schema, as TypeBox builds it: the keywords read here, among others. */
interface Schema {
  type?: string;
  format?: string;
  description?: string;
  anyOf?: Schema[];
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
}

/** Which contract schema carries each of the spec's field tables, by the table's title. */
const CONTRACT_OF: Record<string, Schema> = {
  'Video object': Video,
  'Multipart upload session': MultipartSession,
  'Upload URL response': UploadUrl,
  'Chunk detail': ChunkDetail,
  'Temporary recording': TemporaryRecording,
  'Export entry': ExportEntry,
  'Conversion request body': ConversionRequest,
  'Webhook event envelope': VideoReadyEvent,
  'Payload of `video-ready`': VideoReadyEvent.properties.payload,
} satisfies Record<string, object> as Record<string, Schema>;

interface Table {
  title: string;
  header: string[];
  rows: string[][];
}

/** Every table of a Markdown text, titled by the heading or the sentence just above it. */
function tables(markdown: string): Table[] {
  const lines = markdown.split('\n');
  const found: Table[] = [];
  let title = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    const cells = (row: string) =>
      row
        .trim()
        .replace(/^\||\|$/g, '')
        .split('|')
        .map((c) => c.trim());
    if (line.startsWith('|') && lines[i + 1]?.trim().startsWith('|---')) {
      const table: Table = { title, header: cells(line), rows: [] };
      for (i += 2; lines[i]?.trim().startsWith('|'); i++) table.rows.push(cells(lines[i]!));
      found.push(table);
    } else if (line !== '') {
      // "### Chunk detail (element of `chunks` …)" is titled "Chunk detail"; "Payload of `video-ready`:" as it reads.
      title = line
        .replace(/^#+\s*/, '')
        .replace(/\s*\(.*\)$/, '')
        .replace(/:$/, '');
    }
  }
  return found;
}

/** The schema of a dotted field (`playback.hls_url`), or undefined when the contract has no such field. */
function fieldOf(schema: Schema, dotted: string): Schema | undefined {
  return dotted.split('.').reduce<Schema | undefined>((s, name) => s?.properties?.[name], schema);
}

const withoutNull = (s: Schema): { schema: Schema; nullable: boolean } => {
  const other = s.anyOf?.filter((a) => a.type !== 'null');
  return s.anyOf && other?.length === 1 ? { schema: other[0]!, nullable: true } : { schema: s, nullable: false };
};
const plural = (title: string) => title.toLowerCase().replace(/y$/, 'ie') + 's';

/**
 * Why the schema is not of the spec's type, or '' when it is. A field the spec does not call nullable may be
 * null only where the contract's description records that as a decision (a recording's end_time while it is
 * live, say): the spec leaves it open, and docs say what was chosen.
 */
function mismatch(specType: string, field: Schema): string {
  const { schema, nullable } = withoutNull(field);
  const orNull = / or null$/.test(specType);
  const type = specType.replace(/ or null$/, '');
  if (orNull && !nullable) return 'the spec allows null, the contract does not';
  if (nullable && !orNull && !/Decision/.test(field.description ?? ''))
    return 'the contract allows null where the spec does not, and its description records no decision';
  const is = (t: string) => (schema.type === t ? '' : `the contract says ${schema.type ?? JSON.stringify(schema)}`);
  if (type === 'string') return is('string');
  if (type === 'string (URL)') return is('string') || (schema.format === 'uri' ? '' : 'not format: uri');
  if (type === 'string (ISO 8601 timestamp)')
    return (
      is('string') ||
      (schema.format === 'date-time' || /ISO 8601/.test(schema.description ?? '') ? '' : 'not an ISO 8601 time')
    );
  if (/^integer( \(.*\))?$/.test(type)) return is('integer');
  if (type === 'boolean' || type === 'object') return is(type);
  const arrayOf = /^array of (.+)$/.exec(type);
  if (arrayOf) {
    const element = Object.keys(CONTRACT_OF).find((title) => plural(title) === arrayOf[1]);
    if (!element) return `no table in the spec is "${arrayOf[1]}"`;
    if (schema.type !== 'array') return `the contract says ${schema.type}`;
    return JSON.stringify(schema.items) === JSON.stringify(CONTRACT_OF[element])
      ? ''
      : `its items are not the contract's ${element}`;
  }
  return `this test does not know the spec's type "${specType}": teach it`;
}

const spec = readFileSync(COPY, 'utf8');
const fieldTables = tables(spec).filter((t) => t.header[0] === 'Field' && t.header[1] === 'Type');

describe("the spec's field tables (docs/spec/service-spec.md) against the contract (src/api/contract.ts)", () => {
  it('reads a verbatim copy of ../shared/service-spec.md, where that exists', (t) => {
    const original = originalSpec();
    if (!existsSync(original)) {
      t.diagnostic(`${original} is not on this machine: the copy is read as it is`);
      return;
    }
    assert.ok(
      readFileSync(original).equals(readFileSync(COPY)),
      `docs/spec/service-spec.md differs from ${original}: copy it over (cp ${original} docs/spec/service-spec.md), then see what this test says`,
    );
  });

  it('maps every field table of the spec to a contract schema, and no other', () => {
    assert.deepEqual(
      fieldTables.map((t) => t.title),
      Object.keys(CONTRACT_OF),
    );
  });

  for (const table of fieldTables) {
    it(`finds every field of "${table.title}" in the contract, with the spec's type`, () => {
      const schema = CONTRACT_OF[table.title]!;
      const required = table.header.indexOf('Required');
      const wrong: string[] = [];
      for (const row of table.rows) {
        const [name, type] = row as [string, string];
        const field = fieldOf(schema, name);
        if (!field) {
          wrong.push(`${name}: not in the contract`);
          continue;
        }
        const why = mismatch(type, field);
        if (why) wrong.push(`${name} (${type}): ${why}`);
        if (required >= 0) {
          const parent = name.includes('.') ? fieldOf(schema, name.replace(/\.[^.]+$/, ''))! : schema;
          const isRequired = (parent.required ?? []).includes(name.replace(/^.*\./, ''));
          if (isRequired !== (row[required] === 'Yes'))
            wrong.push(`${name}: required is "${row[required]}" in the spec`);
        }
      }
      assert.deepEqual(wrong, []);
    });
  }

  it('finds every track field of mediainfo, a string in the track of its @type', () => {
    const table = tables(spec).find((t) => t.header[0] === '@type' && t.header[1] === 'Fields');
    assert.ok(table, "the spec's table of track fields");
    const contract: Record<string, readonly string[]> = {
      General: GENERAL_FIELDS,
      Video: VIDEO_FIELDS,
      Audio: AUDIO_FIELDS,
    };
    for (const [type, fields] of table.rows as [string, string][]) {
      assert.deepEqual(fields.split(', '), contract[type], `the fields of a ${type} track`);
    }
    const tracks = fieldOf(CONTRACT_OF['Webhook event envelope']!, 'payload.mediainfo.track')!.items!.anyOf!;
    for (const track of tracks) {
      for (const [name, s] of Object.entries(track.properties!)) assert.equal(s.type, 'string', name);
    }
  });
});
