/**
 * The MediaInfo worker (processing/mediainfo.ts starts one per file): mediainfo.js's WASM parser, given the file
 * named in workerData, posts the spec's `mediainfo` back.
 */
import mediaInfoFactory from 'mediainfo.js';
import { parentPort, workerData } from 'node:worker_threads';
import { open, stat } from 'node:fs/promises';
import { AUDIO_FIELDS, GENERAL_FIELDS, VIDEO_FIELDS } from '../../src/api/mediainfo-fields.js';
import type { MediaInfo, MediaTrack } from '../../src/api/types.js';

/** MediaInfo's General `Format` → the usual file extension (mediainfo.js has no file name to read it from). */
const EXTENSIONS: Record<string, string> = {
  'MPEG-4': 'mp4',
  QuickTime: 'mov',
  Matroska: 'mkv',
  WebM: 'webm',
  'MPEG-TS': 'ts',
  'MPEG-PS': 'mpg',
  AVI: 'avi',
  'Flash Video': 'flv',
  'Windows Media': 'wmv',
  Wave: 'wav',
  'MPEG Audio': 'mp3',
  ADTS: 'aac',
  Ogg: 'ogg',
  FLAC: 'flac',
};

const FIELDS = { General: GENERAL_FIELDS, Video: VIDEO_FIELDS, Audio: AUDIO_FIELDS } as const;
type TrackType = keyof typeof FIELDS;

/** MediaInfo leaves OverallBitRate_Mode out of most MP4s: CBR when every stream says CBR, otherwise VBR. */
const overallMode = (tracks: Record<string, string>[]) =>
  tracks.filter((t) => t['@type'] === 'Video' || t['@type'] === 'Audio').every((t) => t.BitRate_Mode === 'CBR')
    ? 'CBR'
    : 'VBR';

/**
 * The spec's `mediainfo`: General, Video and Audio tracks with exactly the spec's fields, every value a
 * string (a field MediaInfo does not report is "", except OverallBitRate_Mode, derived). `full` is needed for `DisplayAspectRatio_String`.
 */
async function analyze(file: string): Promise<MediaInfo> {
  const mediainfo = await mediaInfoFactory({ format: 'JSON', full: true });
  const handle = await open(file);
  try {
    const { size } = await stat(file);
    const text = await mediainfo.analyzeData(size, async (length, offset) => {
      const buffer = Buffer.alloc(length);
      const { bytesRead } = await handle.read(buffer, 0, length, offset);
      return buffer.subarray(0, bytesRead);
    });
    const tracks = (JSON.parse(text) as { media: { track: Record<string, string>[] } }).media.track;
    const track = tracks
      .filter((t): t is Record<string, string> & { '@type': TrackType } => t['@type']! in FIELDS)
      .map((t) => {
        const picked: Record<string, string> = { '@type': t['@type'] };
        for (const field of FIELDS[t['@type']]) picked[field] = String(t[field] ?? '');
        if (t['@type'] === 'General') {
          picked.FileExtension = t.FileExtension ?? EXTENSIONS[t.Format ?? ''] ?? '';
          picked.OverallBitRate_Mode ||= overallMode(tracks);
          picked.VideoCount ||= '0';
          picked.AudioCount ||= '0';
        }
        return picked as MediaTrack;
      });
    const general = tracks.find((t) => t['@type'] === 'General');
    return { duration: Number(general?.Duration ?? 0).toFixed(3), track };
  } finally {
    mediainfo.close();
    await handle.close();
  }
}

parentPort!.postMessage(await analyze((workerData as { file: string }).file));
