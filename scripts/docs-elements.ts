/**
 * docs/elements.md, the elements' reference, from the Custom Elements Manifest (dist/custom-elements.json, which
 * `npm run build` makes from the classes' JSDoc). `npm run docs` builds and writes it; CI runs
 * `tsx scripts/docs-elements.ts --check` after the build, which writes nothing and fails when the file differs from
 * what it would write, so the reference cannot drift from the code. The output goes through prettier, so
 * `prettier --check` agrees with it whatever the tables' widths.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';

const MANIFEST = fileURLToPath(new URL('../dist/custom-elements.json', import.meta.url));
const OUTPUT = fileURLToPath(new URL('../docs/elements.md', import.meta.url));

interface Described {
  name: string;
  description?: string;
  type?: { text: string };
  default?: string;
}
interface Member extends Described {
  kind: 'field' | 'method';
  attribute?: string;
  privacy?: 'public' | 'private' | 'protected';
  static?: boolean;
  readonly?: boolean;
}
interface Attribute extends Described {
  fieldName?: string;
}
interface Element {
  kind: string;
  name: string;
  tagName?: string;
  customElement?: boolean;
  description?: string;
  attributes?: Attribute[];
  members?: Member[];
  events?: Described[];
  slots?: Described[];
  cssParts?: Described[];
  cssProperties?: Described[];
}
interface Manifest {
  modules: { path: string; declarations?: Element[] }[];
}

/**
 * One line of a table cell: newlines joined, pipes escaped; outside code, a `<tag>` becomes code and any other `<`
 * text, so a description never turns into HTML.
 */
function cell(text: string | undefined): string {
  if (!text) return '';
  return text
    .replace(/\s*\n\s*/g, ' ')
    .split(/(`[^`]*`)/)
    .map((part) =>
      part.startsWith('`')
        ? part
        : part.replace(/<([a-z][\w-]*)>|</g, (_, tag?: string) => (tag ? `\`<${tag}>\`` : '&lt;')),
    )
    .join('')
    .replace(/\|/g, '\\|');
}

const code = (text: string | undefined) => (text ? `\`${text}\`` : '');
/** `string | undefined` is how an optional property reads in TypeScript; the reference says `string`. */
const typeOf = (text: string | undefined) => text?.replace(/\s*\|\s*undefined\b/, '');

function table(head: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n');
}

function section(title: string, head: string[], rows: string[][]): string[] {
  return rows.length === 0 ? [] : [`### ${title}`, table(head, rows)];
}

function describe(element: Element, path: string): string {
  const tag = element.tagName!;
  const members = (element.members ?? []).filter((m) => !m.static && (m.privacy ?? 'public') === 'public');
  const field = (name: string | undefined) => members.find((m) => m.name === name);
  const attributes = (element.attributes ?? []).map((a) => {
    const property = field(a.fieldName);
    return [
      code(a.name),
      code(a.fieldName),
      cell(code(typeOf(a.type?.text ?? property?.type?.text))),
      cell(code(a.default ?? property?.default)),
      cell(a.description ?? property?.description),
    ];
  });
  const properties = members
    .filter((m) => m.kind === 'field' && !m.attribute)
    .map((m) => [code(m.name), cell(code(typeOf(m.type?.text))), cell(code(m.default)), cell(m.description)]);
  const methods = members.filter((m) => m.kind === 'method').map((m) => [code(`${m.name}()`), cell(m.description)]);
  const events = element.events ?? [];
  // A type column only where the manifest gives one beyond a bare CustomEvent: the details are in the descriptions.
  const typed = events.some((e) => e.type && e.type.text !== 'CustomEvent');
  const eventRows = events.map((e) =>
    typed ? [code(e.name), cell(code(e.type?.text)), cell(e.description)] : [code(e.name), cell(e.description)],
  );
  return [
    `## \`<${tag}>\``,
    `${cell(element.description)} Class \`${element.name}\`, defined in \`${path}\`.`,
    ...section('Attributes', ['attribute', 'property', 'type', 'default', 'description'], attributes),
    ...section('Properties (no attribute)', ['property', 'type', 'default', 'description'], properties),
    ...section('Methods', ['method', 'description'], methods),
    ...section('Events', typed ? ['event', 'type', 'detail and when'] : ['event', 'detail and when'], eventRows),
    ...section(
      'Slots',
      ['slot', 'description'],
      (element.slots ?? []).map((s) => [s.name ? code(s.name) : '(default)', cell(s.description)]),
    ),
    ...section(
      'CSS parts',
      ['part', 'description'],
      (element.cssParts ?? []).map((p) => [code(p.name), cell(p.description)]),
    ),
    ...section(
      'CSS custom properties',
      ['property', 'default', 'description'],
      (element.cssProperties ?? []).map((p) => [code(p.name), cell(code(p.default)), cell(p.description)]),
    ),
  ].join('\n\n');
}

async function render(manifest: Manifest): Promise<string> {
  const elements = manifest.modules.flatMap((module) =>
    (module.declarations ?? [])
      .filter((d) => d.kind === 'class' && d.customElement && d.tagName)
      .map((d) => describe(d, module.path)),
  );
  const markdown = [
    '# Elements reference',
    '<!-- Generated by scripts/docs-elements.ts from dist/custom-elements.json: do not edit; run `npm run docs`. -->',
    "Every attribute, property, event, part and CSS custom property of the package's elements, as the Custom " +
      "Elements Manifest (`dist/custom-elements.json`, made from the classes' JSDoc) describes them. How to use " +
      'them: [the uploader](uploader.md), [live streams and the clipper](live.md).',
    ...elements,
  ].join('\n\n');
  const options = await resolveConfig(OUTPUT);
  return format(markdown, { ...options, parser: 'markdown' });
}

if (!existsSync(MANIFEST)) {
  console.error('dist/custom-elements.json is missing: run npm run build first (npm run docs builds, then writes).');
  process.exit(1);
}
const expected = await render(JSON.parse(await readFile(MANIFEST, 'utf8')) as Manifest);
if (process.argv.includes('--check')) {
  const current = existsSync(OUTPUT) ? await readFile(OUTPUT, 'utf8') : '';
  if (current !== expected) {
    console.error('docs/elements.md is out of date: run npm run docs');
    process.exit(1);
  }
  console.log('docs/elements.md is up to date with dist/custom-elements.json');
} else {
  await writeFile(OUTPUT, expected);
  console.log('docs/elements.md written from dist/custom-elements.json');
}
