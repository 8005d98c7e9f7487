import type { Strings } from '../locale/en.js';
import type { MediaLimits, Resolution } from '../options.js';

/** What the element reads of a video before it is added: null where the file does not say. */
export interface MediaFacts {
  duration: number | null;
  width: number | null;
  height: number | null;
}

/**
 * Reads a video's length and frame size. First as the browser plays it: a detached <video> that loads metadata
 * only (the browser reads the header and the index, not the whole file). When the browser cannot decode the file
 * (MKV, AVI, MPEG-TS, WMV, MXF in most browsers), MediaInfo compiled to WebAssembly (media-info.ts, loaded only
 * then) reads the bytes it asks for, a slice at a time. Null when neither can read it.
 */
export async function readMedia(file: Blob): Promise<MediaFacts | null> {
  const facts = await readWithElement(file);
  if (facts?.duration !== null && facts?.width) return facts;
  const { readWithMediaInfo } = await import('./media-info.js');
  return (await readWithMediaInfo(file).catch(() => null)) ?? facts;
}

/**
 * A <video> in no document, playing `blob` from an object URL: `watch` sets its handlers and calls `done` with a
 * result. The URL is revoked and the decoder released when done, or after `timeoutMs` (then the result is
 * `fallback`): a browser that neither plays nor refuses a file in time is one that cannot read it.
 */
export function detachedVideo<T>(
  blob: Blob,
  preload: 'metadata' | 'auto',
  fallback: T,
  watch: (video: HTMLVideoElement, done: (result: T) => void) => void,
  timeoutMs = 10_000,
): Promise<T> {
  const video = document.createElement('video');
  video.preload = preload;
  video.muted = true;
  video.playsInline = true;
  const url = URL.createObjectURL(blob);
  return new Promise<T>((resolve) => {
    const done = (result: T) => {
      clearTimeout(timer);
      video.removeAttribute('src');
      video.load();
      URL.revokeObjectURL(url);
      resolve(result);
    };
    const timer = setTimeout(() => done(fallback), timeoutMs);
    video.onerror = () => done(fallback);
    watch(video, done);
    video.src = url;
  });
}

function readWithElement(file: Blob): Promise<MediaFacts | null> {
  return detachedVideo<MediaFacts | null>(file, 'metadata', null, (video, done) => {
    const facts = () => ({
      duration: Number.isFinite(video.duration) ? video.duration : null,
      width: video.videoWidth || null,
      height: video.videoHeight || null,
    });
    video.onloadedmetadata = () => {
      if (video.duration !== Infinity) return done(facts());
      // A WebM from MediaRecorder (a camera or screen recording) has no length in its header: a seek past the end
      // makes the browser find it from the last cluster.
      video.ondurationchange = () => Number.isFinite(video.duration) && done(facts());
      video.currentTime = Number.MAX_SAFE_INTEGER;
    };
  });
}

/**
 * The facts the limits judge when the browser may change the video before sending it (issue 31: the checks see the
 * result). With `trim`, a video longer than `max-duration` is taken: its card's trim starts at that length, and the
 * part kept is judged again when the upload starts. With `max-upload-resolution`, the frame judged is the one sent:
 * the source's, fitted into that box.
 */
export function factsSent(
  facts: MediaFacts | null,
  limits: MediaLimits,
  changes: { trim: boolean; shrinkTo: Resolution | null },
): MediaFacts | null {
  if (!facts) return facts;
  let { duration, width, height } = facts;
  if (changes.trim && duration !== null && limits.maxDuration !== null)
    duration = Math.min(duration, limits.maxDuration);
  const box = changes.shrinkTo;
  if (box && width && height) {
    const scale = Math.min(1, box.long / Math.max(width, height), box.short / Math.min(width, height));
    [width, height] = [Math.round(width * scale), Math.round(height * scale)];
  }
  return { duration, width, height };
}

/** A length as a person reads it: `8 s`, `4 min 5 s`, `1 h 30 min`. */
export function formatDuration(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${Math.round(seconds * 10) / 10} s`;
  const [h, m, rest] = [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60];
  return [h && `${h} h`, m && `${m} min`, rest && `${rest} s`].filter(Boolean).join(' ');
}

const formatResolution = (r: Resolution) => `${r.long}×${r.short}`;

/**
 * Why a file is refused under the limits, in the person's language, or undefined when it passes. A resolution
 * compares the longer side with the longer side and the shorter with the shorter, so a portrait video is judged
 * as its landscape twin. Decision: a file whose length or size cannot be read, while a limit on it is set, is
 * refused and the person told so (it cannot be shown to be within the limits).
 */
export function refusal(name: string, facts: MediaFacts | null, limits: MediaLimits, t: Strings): string | undefined {
  const { maxDuration, minDuration, maxResolution, minResolution } = limits;
  const needsDuration = maxDuration !== null || minDuration !== null;
  const needsSize = maxResolution !== null || minResolution !== null;
  if (!facts || (needsDuration && facts.duration === null) || (needsSize && !(facts.width && facts.height)))
    return t.unreadable(name);
  const { duration } = facts;
  if (duration !== null && maxDuration !== null && duration > maxDuration)
    return t.tooLong(name, formatDuration(duration), formatDuration(maxDuration));
  if (duration !== null && minDuration !== null && duration < minDuration)
    return t.tooShort(name, formatDuration(duration), formatDuration(minDuration));
  if (!facts.width || !facts.height) return undefined;
  const size = { long: Math.max(facts.width, facts.height), short: Math.min(facts.width, facts.height) };
  if (maxResolution && (size.long > maxResolution.long || size.short > maxResolution.short))
    return t.resolutionTooHigh(name, `${facts.width}×${facts.height}`, formatResolution(maxResolution));
  if (minResolution && (size.long < minResolution.long || size.short < minResolution.short))
    return t.resolutionTooLow(name, `${facts.width}×${facts.height}`, formatResolution(minResolution));
  return undefined;
}
