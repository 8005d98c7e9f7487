import { access, mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { run } from '../processing/ffmpeg.js';
import type { Part } from './playlist.js';
import { Recent } from './recent.js';
import { notFound } from '../domain/errors.js';
import { log } from '../log.js';

/** One thumbnail per segment (every 2 s), this size, 10 to a row and 100 to a sheet. */
export const THUMB_WIDTH = 160;
export const THUMB_HEIGHT = 90;
export const COLUMNS = 10;
export const PER_SHEET = 100;
/** Thumbnails made by one ffmpeg run (one input each). */
const BATCH = 24;
/**
 * Recordings whose segments, storyboard and playlist are kept in memory (the ones asked for last). Decision: a
 * 12-hour recording holds some 10 MB of them; 64 keep that bounded, and one asked for again is read once more.
 */
export const CACHED_RECORDINGS = 64;

const timecode = (s: number) => {
  const ms = Math.round(s * 1000);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}.${pad(ms % 1000, 3)}`;
};

/** What the recording routes did on disk to learn about segments, and the ffmpeg runs of storyboards (test hooks). */
export interface RecordingWork {
  fileCalls: number;
  ffmpegRuns: number;
}

/** A thumbnail on the timeline of temporary_playback. */
interface Placed {
  start: number;
  end: number;
  file: string;
}

/** What is known of one recording's storyboard, in memory: each segment is settled once. */
interface Board {
  /** By part: whether its segments have a picture (probed once), and each settled segment's thumbnail (null: none). */
  parts: Map<number, { picture?: boolean; thumbs: (string | null)[] }>;
  /** The thumbnails placed and the WebVTT, as of `settled` segments. */
  drawn?: { settled: number; thumbs: Placed[]; vtt: string };
  /** Sheet files made. */
  sheets: Set<string>;
}

/**
 * A recording's storyboard: a thumbnail of each segment's first frame (made as segments arrive: the ingest asks
 * every few seconds while a publish is on, and every request for the storyboard makes what is missing), laid out
 * in sprite sheets of 10 × 10, and a WebVTT that gives each segment's time span its place in a sheet
 * (`storyboard/0.jpg?n=37#xywh=160,270,160,90`), on the timeline of temporary_playback (the segments' lengths one
 * after another, as a player counts them). A sheet is composed when asked for, and kept for as long as no
 * thumbnail is added to it (`n` is how many it holds, so a browser may cache each address).
 *
 * Each segment is settled once (item 7 of issue 28): its thumbnail made, or, for a segment without a picture (an
 * audio-only publish, or one ffmpeg cannot read), marked as having none, so ffmpeg never runs for it again. What
 * is settled is kept in memory (the last CACHED_RECORDINGS recordings asked for); a request that finds no new
 * segment touches no thumbnail and runs nothing.
 */
export class Storyboards {
  private readonly busy = new Map<string, Promise<void>>();
  /** Recordings being deleted: no work starts for them, so none writes into a folder that is going. */
  private readonly closed = new Set<string>();
  private readonly boards = new Recent<Board>(CACHED_RECORDINGS, () => ({ parts: new Map(), sheets: new Set() }));

  constructor(
    private readonly dirOf: (recordingId: string) => string,
    private readonly partsOf: (recordingId: string) => Promise<Part[]>,
    private readonly work: RecordingWork,
  ) {}

  /** Settles the segments that are new; one run at a time per recording (a second caller waits for it). */
  update(id: string): Promise<{ board: Board; parts: Part[] }> {
    return this.queue(id, () => this.settle(id));
  }

  /** Runs `work` after whatever this recording's storyboard is doing: files are written by one hand at a time. */
  private queue<T>(id: string, work: () => Promise<T>): Promise<T> {
    if (this.closed.has(id)) return Promise.reject(notFound(`Temporary recording ${JSON.stringify(id)}`));
    const next = (this.busy.get(id) ?? Promise.resolve()).then(work);
    const settled = next.then(
      () => {},
      (err: Error) => log.error(`storyboard of ${id}: ${err.message}`),
    );
    this.busy.set(id, settled);
    void settled.then(() => this.busy.get(id) === settled && this.busy.delete(id));
    return next;
  }

  /**
   * The recording is being deleted: what is asked for it from now on is not found, and this settles once the work
   * already under way is done (before its files are deleted).
   */
  async close(id: string): Promise<void> {
    this.closed.add(id);
    await this.busy.get(id)?.catch(() => {});
  }

  /** The recording is gone (or its deletion failed, to be tried again): what was known of it goes too. */
  forget(id: string): void {
    this.boards.delete(id);
    this.closed.delete(id);
  }

  async vtt(id: string): Promise<string> {
    return (await this.drawn(id)).vtt;
  }

  /** The file of sheet `index` with every thumbnail it has now; undefined when it has none. */
  async sheet(id: string, index: number): Promise<string | undefined> {
    const { thumbs, sheets } = await this.drawn(id);
    return this.queue(id, () =>
      this.compose(id, thumbs.slice(index * PER_SHEET, (index + 1) * PER_SHEET), sheets, index),
    );
  }

  /** The thumbnails placed on the timeline and their WebVTT, drawn again only when a segment was settled. */
  private async drawn(id: string): Promise<{ thumbs: Placed[]; vtt: string; sheets: Set<string> }> {
    const { board, parts } = await this.update(id);
    const settled = [...board.parts.values()].reduce((n, p) => n + p.thumbs.length, 0);
    if (board.drawn?.settled !== settled) {
      const thumbs = place(board, parts);
      board.drawn = { settled, thumbs, vtt: webVtt(thumbs) };
    }
    return { ...board.drawn, sheets: board.sheets };
  }

  private async compose(id: string, thumbs: Placed[], sheets: Set<string>, index: number): Promise<string | undefined> {
    if (thumbs.length === 0) return undefined;
    const dir = join(this.dirOf(id), 'storyboard');
    const file = join(dir, `${index}-${thumbs.length}.jpg`);
    if (sheets.has(file)) return file;
    if (!(await this.exists(file))) {
      await mkdir(dir, { recursive: true });
      const list = join(dir, `${index}.txt`);
      await writeFile(list, thumbs.map((t) => `file '${t.file}'`).join('\n'));
      const rows = Math.ceil(thumbs.length / COLUMNS);
      await this.ffmpeg([
        ...['-v', 'error', '-f', 'concat', '-safe', '0', '-i', list],
        ...['-vf', `tile=${COLUMNS}x${rows}`, '-frames:v', '1', '-q:v', '5', '-y', `${file}.tmp.jpg`],
      ]);
      await rename(`${file}.tmp.jpg`, file);
      // The same sheet with fewer thumbnails is no longer listed.
      for (const name of await readdir(dir))
        if (name.startsWith(`${index}-`) && join(dir, name) !== file) await rm(join(dir, name), { force: true });
    }
    sheets.add(file);
    return file;
  }

  /** Settles each segment not settled yet: its thumbnail made (24 to an ffmpeg run), or none without a picture. */
  private async settle(id: string): Promise<{ board: Board; parts: Part[] }> {
    const board = this.boards.get(id);
    const parts = await this.partsOf(id);
    for (const part of parts) {
      const dir = join(this.dirOf(id), `part${part.seq}`);
      let known = board.parts.get(part.seq);
      let pending = part.segments
        .slice(known?.thumbs.length ?? 0)
        .map((s) => ({ segment: join(dir, s.file), thumb: join(dir, thumbName(s.file)) }));
      if (pending.length === 0) continue;
      if (!known) {
        board.parts.set(part.seq, (known = { thumbs: [] }));
        // Made before a restart, or before the recording was dropped from memory: found on disk, once.
        for (const p of pending)
          if (await this.exists(p.thumb)) known.thumbs.push(p.thumb);
          else break;
        pending = pending.slice(known.thumbs.length);
        if (pending.length === 0) continue;
      }
      // A publish's recorder keeps its streams from start to end: the first segment tells for the whole part.
      known.picture ??= await this.hasPicture(pending[0]!.segment);
      for (let i = 0; i < pending.length; i += BATCH) {
        const batch = pending.slice(i, i + BATCH);
        if (known.picture) await this.thumbnails(batch);
        for (const b of batch) known.thumbs.push(known.picture && (await this.exists(b.thumb)) ? b.thumb : null);
      }
    }
    return { board, parts };
  }

  /** One ffmpeg run for the batch; if it fails (a segment it cannot read), one run per segment. */
  private async thumbnails(batch: { segment: string; thumb: string }[]): Promise<void> {
    const scale = `scale=${THUMB_WIDTH}:${THUMB_HEIGHT}:force_original_aspect_ratio=decrease,pad=${THUMB_WIDTH}:${THUMB_HEIGHT}:-1:-1`;
    const make = (some: typeof batch) =>
      this.ffmpeg([
        '-v',
        'error',
        ...some.flatMap((b) => ['-i', b.segment]),
        ...some.flatMap((b, n) => ['-map', `${n}:v:0`, '-frames:v', '1', '-vf', scale, '-q:v', '5', '-y', b.thumb]),
      ]);
    await make(batch).catch(async () => {
      for (const b of batch) await make([b]).catch(() => {});
    });
  }

  private async hasPicture(segment: string): Promise<boolean> {
    this.work.ffmpegRuns++;
    const out = await run('ffprobe', [
      ...['-v', 'error', '-select_streams', 'v', '-show_entries', 'stream=index', '-of', 'csv=p=0', segment],
    ]).catch(() => undefined);
    return out === undefined || out.trim() !== '';
  }

  private ffmpeg(args: string[]): Promise<string> {
    this.work.ffmpegRuns++;
    return run('ffmpeg', args);
  }

  private exists(file: string): Promise<boolean> {
    this.work.fileCalls++;
    return access(file).then(
      () => true,
      () => false,
    );
  }
}

/** Every segment in order with its span on the playlist's timeline and its thumbnail, up to the first not settled. */
function place(board: Board, parts: Part[]): Placed[] {
  const out: Placed[] = [];
  let at = 0;
  for (const part of parts) {
    const thumbs = board.parts.get(part.seq)?.thumbs ?? [];
    for (const [i, segment] of part.segments.entries()) {
      const file = thumbs[i];
      if (file === undefined) return out;
      if (file) out.push({ start: at, end: at + segment.duration, file });
      at += segment.duration;
    }
  }
  return out;
}

function webVtt(thumbs: Placed[]): string {
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

const thumbName = (segment: string) => segment.replace(/^seg/, 'thumb').replace(/\.ts$/, '.jpg');
