import { access, mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { run } from '../processing/ffmpeg.js';
import type { Part } from './playlist.js';

/** One thumbnail per segment (every 2 s), this size, 10 to a row and 100 to a sheet. */
export const THUMB_WIDTH = 160;
export const THUMB_HEIGHT = 90;
const COLUMNS = 10;
const PER_SHEET = 100;
/** Thumbnails made by one ffmpeg run (one input each). */
const BATCH = 24;

const timecode = (s: number) => {
  const ms = Math.round(s * 1000);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}.${pad(ms % 1000, 3)}`;
};

/**
 * A recording's storyboard: a thumbnail of each segment's first frame (made as segments arrive: the ingest asks
 * every few seconds while a publish is on, and every request for the storyboard makes what is missing), laid out
 * in sprite sheets of 10 × 10, and a WebVTT that gives each segment's time span its place in a sheet
 * (`storyboard/0.jpg?n=37#xywh=160,270,160,90`), on the timeline of temporary_playback (the segments' lengths one
 * after another, as a player counts them). A sheet is composed when asked for, and kept for as long as no
 * thumbnail is added to it (`n` is how many it holds, so a browser may cache each address).
 */
export class Storyboards {
  private readonly busy = new Map<string, Promise<void>>();

  constructor(
    private readonly dirOf: (recordingId: string) => string,
    private readonly partsOf: (recordingId: string) => Promise<Part[]>,
  ) {}

  /** Makes the thumbnails that are missing; one run at a time per recording (a second caller waits for it). */
  update(id: string): Promise<void> {
    return this.queue(id, () => this.makeThumbs(id));
  }

  /** Runs `work` after whatever this recording's storyboard is doing: files are written by one hand at a time. */
  private queue<T>(id: string, work: () => Promise<T>): Promise<T> {
    const next = (this.busy.get(id) ?? Promise.resolve()).then(work);
    const settled = next.then(
      () => {},
      (err: Error) => console.error(`storyboard of ${id}: ${err.message}`),
    );
    this.busy.set(id, settled);
    void settled.then(() => this.busy.get(id) === settled && this.busy.delete(id));
    return next;
  }

  /** Settles once no thumbnail of the recording is being made (before its files are deleted). */
  async idle(id: string): Promise<void> {
    await this.busy.get(id)?.catch(() => {});
  }

  async vtt(id: string): Promise<string> {
    await this.update(id);
    const thumbs = await this.thumbs(id);
    const cues = ['WEBVTT', ''];
    const count = (sheet: number) => Math.min(PER_SHEET, thumbs.length - sheet * PER_SHEET);
    thumbs.forEach((t, i) => {
      const sheet = Math.floor(i / PER_SHEET);
      const x = (i % COLUMNS) * THUMB_WIDTH;
      const y = Math.floor((i % PER_SHEET) / COLUMNS) * THUMB_HEIGHT;
      cues.push(
        `${timecode(t.start)} --> ${timecode(t.end)}`,
        `storyboard/${sheet}.jpg?n=${count(sheet)}#xywh=${x},${y},${THUMB_WIDTH},${THUMB_HEIGHT}`,
        '',
      );
    });
    return cues.join('\n');
  }

  /** The file of sheet `index` with every thumbnail it has now; undefined when it has none. */
  async sheet(id: string, index: number): Promise<string | undefined> {
    await this.update(id);
    return this.queue(id, () => this.compose(id, index));
  }

  private async compose(id: string, index: number): Promise<string | undefined> {
    const thumbs = (await this.thumbs(id)).slice(index * PER_SHEET, (index + 1) * PER_SHEET);
    if (thumbs.length === 0) return undefined;
    const dir = join(this.dirOf(id), 'storyboard');
    const file = join(dir, `${index}-${thumbs.length}.jpg`);
    if (await exists(file)) return file;
    await mkdir(dir, { recursive: true });
    const list = join(dir, `${index}.txt`);
    await writeFile(list, thumbs.map((t) => `file '${t.file}'`).join('\n'));
    const rows = Math.ceil(thumbs.length / COLUMNS);
    await run('ffmpeg', [
      ...['-v', 'error', '-f', 'concat', '-safe', '0', '-i', list],
      ...['-vf', `tile=${COLUMNS}x${rows}`, '-frames:v', '1', '-q:v', '5', '-y', `${file}.tmp.jpg`],
    ]);
    await rename(`${file}.tmp.jpg`, file);
    // The same sheet with fewer thumbnails is no longer listed.
    for (const name of await readdir(dir))
      if (name.startsWith(`${index}-`) && join(dir, name) !== file) await rm(join(dir, name), { force: true });
    return file;
  }

  /** Every segment in order with its span on the playlist's timeline and its thumbnail, while they are made in order. */
  private async thumbs(id: string): Promise<{ start: number; end: number; file: string }[]> {
    const out: { start: number; end: number; file: string }[] = [];
    let at = 0;
    for (const part of await this.partsOf(id)) {
      for (const segment of part.segments) {
        const file = join(this.dirOf(id), `part${part.seq}`, thumbName(segment.file));
        if (!(await exists(file))) return out;
        out.push({ start: at, end: at + segment.duration, file });
        at += segment.duration;
      }
    }
    return out;
  }

  private async makeThumbs(id: string): Promise<void> {
    const missing: { segment: string; thumb: string }[] = [];
    for (const part of await this.partsOf(id)) {
      const dir = join(this.dirOf(id), `part${part.seq}`);
      for (const s of part.segments) {
        const thumb = join(dir, thumbName(s.file));
        if (!(await exists(thumb))) missing.push({ segment: join(dir, s.file), thumb });
      }
    }
    for (let i = 0; i < missing.length; i += BATCH) {
      const batch = missing.slice(i, i + BATCH);
      const scale = `scale=${THUMB_WIDTH}:${THUMB_HEIGHT}:force_original_aspect_ratio=decrease,pad=${THUMB_WIDTH}:${THUMB_HEIGHT}:-1:-1`;
      await run('ffmpeg', [
        '-v',
        'error',
        ...batch.flatMap((b) => ['-i', b.segment]),
        ...batch.flatMap((b, n) => ['-map', `${n}:v:0`, '-frames:v', '1', '-vf', scale, '-q:v', '5', '-y', b.thumb]),
      ]);
    }
  }
}

const thumbName = (segment: string) => segment.replace(/^seg/, 'thumb').replace(/\.ts$/, '.jpg');
const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );
