import { LEAD_IN_MS } from '../../src/api/limits.js';
import { iso } from '../clock.js';

export interface Segment {
  /** Seconds (EXTINF). */
  duration: number;
  /** File name inside the part's folder. */
  file: string;
}

export interface Part {
  seq: number;
  /** Service-clock milliseconds when the publish began. */
  startedAt: number;
  segments: Segment[];
}

/** The finished segments of one part, from the media playlist its recorder (ffmpeg's HLS muxer) keeps. */
export function playlistSegments(text: string): Segment[] {
  const segments: Segment[] = [];
  let duration: number | undefined;
  for (const line of text.split('\n').map((l) => l.trim())) {
    if (line.startsWith('#EXTINF:')) duration = Number.parseFloat(line.slice(8));
    else if (line && !line.startsWith('#') && duration !== undefined) {
      segments.push({ duration, file: line });
      duration = undefined;
    }
  }
  return segments;
}

export const partSeconds = (part: Part) => part.segments.reduce((sum, s) => sum + s.duration, 0);

/** `at` (service-clock ms), or the start of the publish it leads into by at most LEAD_IN_MS. */
export function snapToPart(parts: Part[], at: number): number {
  if (parts.some((p) => at >= p.startedAt && at < p.startedAt + partSeconds(p) * 1000)) return at;
  return parts.find((p) => at < p.startedAt && p.startedAt - at <= LEAD_IN_MS)?.startedAt ?? at;
}

/**
 * Between two publishes the recording's MP4 has a gap this long. Each publish's decoding starts a few
 * frames before its first picture (B-frames); joined end to end, the second publish's first decode
 * timestamps would fall before the first's last ones. The stream was down there anyway.
 */
const PART_GAP_SECONDS = 0.2;

/** Where each part starts in the recording's MP4, in seconds: the parts one after another, a gap between. */
export function partStarts(parts: Part[]): number[] {
  let at = 0;
  return parts.map((part) => {
    const start = at;
    at += partSeconds(part) + PART_GAP_SECONDS;
    return start;
  });
}

/**
 * The recording's playlist (`temporary_playback`): every part's segments in order, a discontinuity
 * where a publisher dropped and came back, and a program date time on each segment, counted on the
 * service clock from the publish that made it. An EVENT playlist while the recording can still grow,
 * VOD with an end once it is complete.
 */
export function composePlaylist(parts: Part[], complete: boolean): string {
  const lines = header(
    parts.flatMap((p) => p.segments),
    complete ? 'VOD' : 'EVENT',
  );
  parts.forEach((part, i) => {
    if (i > 0 && part.segments.length > 0) lines.push('#EXT-X-DISCONTINUITY');
    let at = part.startedAt;
    for (const segment of part.segments) {
      lines.push(
        `#EXT-X-PROGRAM-DATE-TIME:${iso(at)}`,
        `#EXTINF:${segment.duration.toFixed(6)},`,
        `part${part.seq}/${segment.file}`,
      );
      at += segment.duration * 1000;
    }
  });
  if (complete) lines.push('#EXT-X-ENDLIST');
  return `${lines.join('\n')}\n`;
}

/**
 * One part's own playlist as its recorder keeps it (an EVENT playlist of the segments in its folder, an end once the
 * part has ended), from its segments: what a worker without the part's files gives ffmpeg (storage/s3-recordings.ts).
 */
export function partPlaylist(segments: Segment[], ended: boolean): string {
  const lines = header(segments, 'EVENT');
  for (const segment of segments) lines.push(`#EXTINF:${segment.duration.toFixed(6)},`, segment.file);
  if (ended) lines.push('#EXT-X-ENDLIST');
  return `${lines.join('\n')}\n`;
}

/** A media playlist's first lines, for these segments. */
function header(segments: Segment[], type: 'EVENT' | 'VOD'): string[] {
  const target = Math.max(1, ...segments.map((s) => Math.ceil(s.duration)));
  return [
    ...['#EXTM3U', '#EXT-X-VERSION:3', `#EXT-X-TARGETDURATION:${target}`, '#EXT-X-MEDIA-SEQUENCE:0'],
    ...[`#EXT-X-PLAYLIST-TYPE:${type}`, '#EXT-X-INDEPENDENT-SEGMENTS'],
  ];
}
