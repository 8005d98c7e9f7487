/**
 * Plays an HLS address in a <video>. This module is the only one that imports hls.js, and the element
 * imports it only when a preview is shown, so hls.js is a chunk of its own that most pages never load.
 * hls.js is asked first: this Chromium answers "maybe" to canPlayType for HLS and then cannot play it.
 */
import Hls from 'hls.js';

export interface Player {
  destroy(): void;
}

/** Loads `url` into `video` with `hls` (its listeners already on), a fatal error told to `onFatal`. */
function attach(hls: Hls, video: HTMLVideoElement, url: string, onFatal: (message: string) => void): Player {
  hls.on(Hls.Events.ERROR, (_event, data) => {
    if (data.fatal) onFatal(`${data.type}: ${data.details}`);
  });
  hls.loadSource(url);
  hls.attachMedia(video);
  return { destroy: () => hls.destroy() };
}

export function playHls(video: HTMLVideoElement, url: string, onFatal: (message: string) => void): Player {
  if (Hls.isSupported()) return attach(new Hls({ enableWorker: true }), video, url, onFatal);
  if (video.canPlayType('application/vnd.apple.mpegurl')) {
    video.src = url;
    return { destroy: () => video.removeAttribute('src') };
  }
  throw new Error('unsupported');
}

/** A recording's timeline as its playlist says: how much is recorded, and the date of any point of it. */
export interface Timeline {
  /** Seconds recorded (the live edge while the playlist can still grow). */
  edge: number;
  /** The playlist can still grow (no end yet). */
  live: boolean;
  /** Service-clock milliseconds at `seconds` on the player's timeline, from the segments' program date times. */
  dateAt(seconds: number): number | undefined;
}

interface Dated {
  start: number;
  duration: number;
  programDateTime: number | null;
  /** Discontinuity sequence: the publish a segment belongs to. */
  cc?: number;
  /** Once hls.js has parsed the segment: when its first frame is shown, on the player's timeline. */
  elementaryStreams?: { video?: { startPTS: number } | null };
}

/**
 * A segment's program date time is the date of its first frame (decision, docs/live.md). hls.js shows that frame a
 * little after the segment's `start` (its timeline starts at the first decode time, before B-frames reorder): by
 * the segment's own parsed first-frame time where it has one, by what another segment of the same publish showed
 * where not.
 */
function timeline(fragments: Dated[], edge: number, live: boolean, shifts: Map<number, number>): Timeline {
  return {
    edge,
    live,
    dateAt(seconds) {
      const f = fragments.find((s) => seconds < s.start + s.duration) ?? fragments.at(-1);
      if (f?.programDateTime == null) return undefined;
      const first = f.elementaryStreams?.video?.startPTS ?? f.start + (shifts.get(f.cc ?? 0) ?? 0);
      return f.programDateTime + (seconds - first) * 1000;
    },
  };
}

/**
 * Plays a recording's temporary_playback for choosing a part of it: the whole recorded window seekable up to the
 * live edge (an EVENT playlist keeps every segment; playback starts at its beginning, paused), and `onTimeline`
 * heard each time the playlist is read, with the program date times that turn a point into #10's `from`.
 */
export function playRecording(
  video: HTMLVideoElement,
  url: string,
  onTimeline: (timeline: Timeline) => void,
  onFatal: (message: string) => void,
): Player {
  if (Hls.isSupported()) {
    const hls = new Hls({ enableWorker: true, startPosition: 0, liveDurationInfinity: false });
    const shifts = new Map<number, number>();
    let details: { fragments: Dated[]; edge: number; live: boolean } | undefined;
    const tell = () => details && onTimeline(timeline(details.fragments, details.edge, details.live, shifts));
    hls.on(Hls.Events.LEVEL_UPDATED, (_event, data) => {
      details = data.details as unknown as typeof details;
      tell();
    });
    hls.on(Hls.Events.FRAG_PARSED, (_event, { frag }) => {
      const video = (frag as unknown as Dated).elementaryStreams?.video;
      if (!video || shifts.has(frag.cc)) return;
      shifts.set(frag.cc, video.startPTS - frag.start);
      tell();
    });
    return attach(hls, video, url, onFatal);
  }
  if (video.canPlayType('application/vnd.apple.mpegurl')) {
    // Native HLS (Safari): the first segment's date and the seekable range stand in for hls.js's playlist.
    const read = () => {
      const start = (video as HTMLVideoElement & { getStartDate?(): Date }).getStartDate?.().getTime();
      const edge = video.seekable.length ? video.seekable.end(video.seekable.length - 1) : 0;
      const live = !Number.isFinite(video.duration);
      onTimeline(
        timeline(
          [{ start: 0, duration: Infinity, programDateTime: Number.isNaN(start) ? null : (start ?? null) }],
          edge,
          live,
          new Map(),
        ),
      );
    };
    video.addEventListener('durationchange', read);
    video.addEventListener('progress', read);
    video.src = url;
    return {
      destroy: () => {
        video.removeEventListener('durationchange', read);
        video.removeEventListener('progress', read);
        video.removeAttribute('src');
      },
    };
  }
  throw new Error('unsupported');
}
