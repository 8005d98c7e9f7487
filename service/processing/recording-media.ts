import { readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { newId } from '../ids.js';
import { playlistSegments, type Segment } from '../live/playlist.js';
import type { RecordingWork } from '../live/storyboard.js';
import { probe, run } from './ffmpeg.js';

/**
 * A recording's files, read and made with ffprobe and ffmpeg: a part's playlist as its recorder wrote it (and a
 * snapshot of it), where a publish's first frame is, the whole recording as one MP4, and their removal. The domain (domain/recordings.ts)
 * keeps the rules and calls these with plain values (files, folders, lengths); they count what they do on
 * disk and with ffmpeg in `work` (read by the test hooks).
 */
export class RecordingMedia {
  /** What the recording routes did on disk and with ffmpeg (storyboards count theirs here too). */
  readonly work: RecordingWork = { fileCalls: 0, ffmpegRuns: 0 };

  /** A part's playlist file: its size, and (when `unless` is another size) its finished segments and whether it has its end. */
  async partPlaylist(
    file: string,
    unless: number | undefined,
  ): Promise<{ size: number; read?: { segments: Segment[]; ended: boolean } }> {
    this.work.fileCalls++;
    const size = await stat(file).then(
      (s) => s.size,
      () => 0,
    );
    if (unless === size) return { size };
    this.work.fileCalls++;
    const text = await readFile(file, 'utf8').catch(() => '');
    return { size, read: { segments: playlistSegments(text), ended: /#EXT-X-ENDLIST/.test(text) } };
  }

  /**
   * Seconds from the start of a segment's media, as ffmpeg counts it (its earliest sample, audio or video), to its
   * first video frame; undefined when ffprobe could not read it (yet).
   */
  async firstFrameOffset(segmentFile: string): Promise<number | undefined> {
    const out = await run('ffprobe', [
      ...['-v', 'error', '-show_entries', 'stream=codec_type,start_time', '-of', 'csv=p=0'],
      segmentFile,
    ]).catch(() => '');
    if (!out) return undefined;
    const starts = out
      .split('\n')
      .map((line) => line.split(','))
      .filter(([, t]) => t && Number.isFinite(Number(t)));
    const video = starts.find(([type]) => type === 'video');
    return video ? Math.max(0, Number(video[1]) - Math.min(...starts.map(([, t]) => Number(t)))) : 0;
  }

  /**
   * Playlists joined into one MP4 (streams copied), each given its length (`seconds`): ffmpeg's concat demuxer over
   * the playlists, written under a temporary name and renamed. Returns the MP4's duration (as ffprobe reads it) and size.
   */
  async joinPlaylists(
    dir: string,
    inputs: { playlist: string; seconds: number }[],
    mp4: string,
    signal: AbortSignal,
  ): Promise<{ duration: number; size: number }> {
    const list = join(dir, 'concat.txt');
    await writeFile(list, inputs.map((p) => `file '${p.playlist}'\nduration ${p.seconds.toFixed(6)}`).join('\n'));
    await run(
      'ffmpeg',
      [
        ...['-v', 'error', '-f', 'concat', '-safe', '0', '-i', list],
        ...['-map', '0:v?', '-map', '0:a?', '-c', 'copy', '-movflags', '+faststart', '-y', `${mp4}.tmp.mp4`],
      ],
      signal,
    );
    await rename(`${mp4}.tmp.mp4`, mp4);
    const duration = Number((await probe(mp4, signal)).format.duration ?? 0);
    return { duration, size: (await stat(mp4)).size };
  }

  /**
   * A snapshot of a part's playlist as it stands (its finished segments, then an end, so ffmpeg reads it as a file),
   * beside it in the part's folder. Returns its path.
   */
  async snapshot(partDir: string): Promise<string> {
    const playlist = join(partDir, `snapshot-${newId()}.m3u8`);
    const text = await readFile(join(partDir, 'stream.m3u8'), 'utf8');
    await writeFile(playlist, /#EXT-X-ENDLIST/.test(text) ? text : `${text.trimEnd()}\n#EXT-X-ENDLIST\n`);
    return playlist;
  }

  /**
   * Files of a recording (by their paths in its folder: `part1/stream.m3u8`, `recording.mp4`) that a job runs ffmpeg
   * on (finishing it, cutting it), on this disk: under `dir`, with those paths. On disk that is the recording's own
   * folder; a store's subclass fetches them into a folder of the job's own where this process does not hold them
   * (storage/s3-recordings.ts). `release` removes what was fetched, however the job ended.
   */
  async local(_recordingId: string, dir: string, _paths: string[]): Promise<{ dir: string; release(): Promise<void> }> {
    return { dir, release: async () => undefined };
  }

  /** A recording's MP4, made: on disk it stays where it is (a store's subclass puts it there). */
  async keep(_recordingId: string, _mp4: string): Promise<void> {}

  /** A recording's folder and everything in it (a store's subclass: its keys in the store too). */
  async remove(_recordingId: string, dir: string): Promise<void> {
    // A publish just ended may still write its last segment and thumbnails meanwhile (rmdir: ENOTEMPTY, a 500
    // to DELETE /live_streams/{id} seen once in four e2e runs): Node retries the removal.
    await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }

  /** The bytes of these files on disk, a missing one counting 0 (a recording's MP4 is about as large as its segments). */
  async bytes(files: string[]): Promise<number> {
    let bytes = 0;
    for (const file of files) bytes += (await stat(file).catch(() => ({ size: 0 }))).size;
    return bytes;
  }
}
