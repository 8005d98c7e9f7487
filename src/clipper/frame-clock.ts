/** One frame until the video has shown two in a row (requestVideoFrameCallback). */
const DEFAULT_FRAME = 1 / 30;

type FrameVideo = HTMLVideoElement & {
  requestVideoFrameCallback?(cb: (now: number, meta: FrameMeta) => void): number;
};
interface FrameMeta {
  mediaTime: number;
  presentedFrames: number;
}

export interface FrameClockHost {
  /** The playhead moved (played, or a seek ended). */
  onTime(video: HTMLVideoElement): void;
  /** The frame asked for by `show` (after `snap`) is shown: its exact time, for the start to take. */
  onSnap(mediaTime: number): void;
  /** Where the start is now: a snap applies only while the start is still within a frame of it. */
  start(): number;
}

/**
 * The recording's frames, as the browser shows them: how long a frame is (from frames shown one after another), the
 * time of the frame a paused video shows, and one seek at a time towards the frame last asked for. A start placed on
 * a frame (`snap`) becomes that frame's own time once the video shows it.
 */
export class FrameClock {
  /** Seconds of one frame. */
  frame = DEFAULT_FRAME;
  private video: FrameVideo | undefined;
  private readonly watched = new WeakSet<HTMLVideoElement>();
  private lastFrame: FrameMeta | undefined;
  /** Where the clock last moved the playhead to show a frame. */
  private seekedTo: number | undefined;
  /** seekedTo was asked while the video was seeking elsewhere: it goes there once that seek ends. */
  private seekQueued = false;
  /** The start was set to a frame: once the video shows it, the start becomes that frame's exact time. */
  private snapping = false;

  constructor(private readonly host: FrameClockHost) {}

  /** Follows `video`'s frames (once per <video>: Lit keeps the element when another recording is chosen). */
  watch(video: FrameVideo): void {
    this.video = video;
    if (this.watched.has(video)) return;
    this.watched.add(video);
    video.addEventListener('timeupdate', () => this.host.onTime(video));
    video.addEventListener('seeked', () => {
      if (this.seekQueued && video.paused) video.currentTime = this.seekedTo!;
      this.seekQueued = false;
      this.host.onTime(video);
    });
    if (!video.requestVideoFrameCallback) return;
    const onFrame = (_now: number, meta: FrameMeta) => {
      const last = this.lastFrame;
      // Frames shown one after another while playing tell how long a frame is; frames shown by seeks do not.
      const playing = !video.paused && !video.seeking;
      const step = playing && last?.presentedFrames === meta.presentedFrames - 1 ? meta.mediaTime - last.mediaTime : 0;
      if (step > 0.004 && step < 0.2) this.frame = this.frame === DEFAULT_FRAME ? step : (this.frame * 7 + step) / 8;
      this.lastFrame = meta;
      if (playing) this.host.onTime(video);
      // The frame the last seek asked for (not one shown on the way): the start becomes its exact time. Firefox
      // gives the playhead (the middle of the frame asked for) as mediaTime, not the frame's time: the start stays.
      const settled =
        !video.seeking && this.seekedTo !== undefined && Math.abs(video.currentTime - this.seekedTo) < 1e-3;
      const framesOwnTime = this.seekedTo !== undefined && Math.abs(meta.mediaTime - this.seekedTo) > 1e-4;
      if (this.snapping && settled && framesOwnTime && Math.abs(meta.mediaTime - this.host.start()) < this.frame) {
        this.snapping = false;
        this.host.onSnap(meta.mediaTime);
      }
      if (this.video === video && video.isConnected) video.requestVideoFrameCallback!(onFrame);
    };
    video.requestVideoFrameCallback(onFrame);
  }

  /** Another recording: nothing shown of it yet. */
  reset(): void {
    this.lastFrame = this.seekedTo = undefined;
    this.seekQueued = false;
  }

  /** The next frame shown at the start (`snap`) gives the start its time; or no longer (`false`). */
  snap(on: boolean): void {
    this.snapping = on;
  }

  /**
   * The time of the frame the paused video shows: as the browser says (requestVideoFrameCallback), else the
   * playhead down to a whole frame (WebKitGTK says nothing; Firefox says the playhead itself).
   */
  shownFrame(video: HTMLVideoElement): number {
    const told = this.lastFrame?.mediaTime;
    if (video.paused && told !== undefined && Math.abs(told - video.currentTime) > 1e-4) return told;
    if (!video.paused) return video.currentTime;
    return Math.floor(video.currentTime / this.frame + 1e-3) * this.frame;
  }

  /** Shows the frame at `seconds` (the middle of it, so rounding cannot show its neighbour) in a paused video. */
  show(video: HTMLVideoElement, seconds: number): void {
    if (!video.paused) return;
    this.seekedTo = Math.max(0, seconds + this.frame / 2);
    // One seek at a time: keys held down ask for many; the last one asked is where the video goes next.
    if (video.seeking) this.seekQueued = true;
    else video.currentTime = this.seekedTo;
  }
}
