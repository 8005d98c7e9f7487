import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { VideoServiceClient } from '../api/client.js';
import { isAbort, VideoServiceError } from '../api/errors.js';
import { wait } from '../api/retry.js';
import type { ConversionRequest, ExportEntry, TemporaryRecording, VideoDetails } from '../api/types.js';
import type { RecordingClipperEventDetails, RecordingClipperEventName } from './events.js';

/** #9 is read this often while something can change (a recording live or stopped, a conversion running). */
const BUSY_POLL_MS = 2_000;
const IDLE_POLL_MS = 10_000;

/** What the host hears. */
export interface RecordingsEvents {
  /** #9 answered (an empty list when the stream is gone). */
  recordings(recordings: TemporaryRecording[]): void;
  /** A conversion asked here is EXPORTED. */
  converted(video: VideoDetails): void;
  /** A conversion asked here failed; `reason` is the service's. */
  failed(reason: string): void;
}

const unfinished = (video: VideoDetails) => video.status === 'waiting' || video.status === 'processing';

/**
 * A stream's recordings and the videos made from it: #9 read until the host disconnects (often while something can
 * change), conversions asked by #10 matched to #9's export entries as they finish (`clip-requested`, `clip-ready`,
 * `clip-failed`), and #11 read again when one has.
 */
export class RecordingsController implements ReactiveController {
  /** #9's list; undefined until it first answers. */
  recordings: TemporaryRecording[] | undefined;
  /** #11's list. */
  videos: VideoDetails[] = [];
  /** The last read of #9 failed (not a 404). */
  unreachable = false;
  private source: { client: VideoServiceClient; streamId: string } | undefined;
  private abort = new AbortController();
  /** Conversions asked here and not yet done. */
  private pending: { recordingId: string; from: string; duration: number }[] = [];

  constructor(
    private readonly host: ReactiveControllerHost & HTMLElement,
    private readonly on: RecordingsEvents,
  ) {
    host.addController(this);
  }

  /** Aborted when the host disconnects or the stream changes. */
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  /** Follows `streamId` from now on (undefined: nothing); what was known of the previous stream is dropped. */
  follow(client: VideoServiceClient | undefined, streamId: string | undefined): void {
    const source = client && streamId ? { client, streamId } : undefined;
    if (source?.client === this.source?.client && source?.streamId === this.source?.streamId) return;
    this.abort.abort();
    this.abort = new AbortController();
    this.source = source;
    this.recordings = undefined;
    this.videos = [];
    this.pending = [];
    this.unreachable = false;
    if (this.host.isConnected) void this.poll();
  }

  hostConnected(): void {
    this.abort = new AbortController();
    void this.poll();
  }

  hostDisconnected(): void {
    this.abort.abort();
  }

  /** #10: converts the part (`from`, `duration`), or the whole recording (`{}`); answers the PROCESSING entry. */
  async convert(recordingId: string, part: ConversionRequest): Promise<ExportEntry> {
    const { client, streamId } = this.source!;
    const entry = await client.convertRecording(streamId, recordingId, part, this.abort.signal);
    this.pending = [...this.pending, { recordingId, from: entry.from, duration: entry.duration }];
    this.emit('clip-requested', { recordingId, from: entry.from, duration: entry.duration, entry });
    return entry;
  }

  private emit<K extends RecordingClipperEventName>(name: K, detail: RecordingClipperEventDetails[K]): void {
    this.host.dispatchEvent(new CustomEvent(name, { detail, bubbles: true, composed: true }));
  }

  /** #9 (and #11 when a conversion is done) until aborted: often while something can change. */
  private async poll(): Promise<void> {
    if (!this.source) return;
    const { signal } = this.abort;
    const { client, streamId } = this.source;
    let first = true;
    while (!signal.aborted) {
      try {
        const recordings = await client.listTemporaryRecordings(streamId, signal);
        this.unreachable = false;
        await this.received(recordings, client, streamId, signal, first);
        first = false;
      } catch (err) {
        if (isAbort(err) || signal.aborted) return;
        // The stream itself is gone (deleted): so are its recordings.
        if (err instanceof VideoServiceError && err.status === 404)
          await this.received([], client, streamId, signal, false);
        else {
          this.unreachable = true;
          this.host.requestUpdate();
        }
      }
      const busy =
        this.pending.length > 0 ||
        this.videos.some(unfinished) ||
        this.recordings?.some((r) => r.status !== 'complete' || r.export_data.some((e) => e.status === 'PROCESSING'));
      try {
        await wait(busy ? BUSY_POLL_MS : IDLE_POLL_MS, signal);
      } catch {
        return;
      }
    }
  }

  private async received(
    recordings: TemporaryRecording[],
    client: VideoServiceClient,
    streamId: string,
    signal: AbortSignal,
    first: boolean,
  ): Promise<void> {
    this.recordings = recordings;
    this.on.recordings(recordings);
    this.host.requestUpdate();
    let done = first;
    for (const p of [...this.pending]) {
      const entry = recordings
        .find((r) => r._id === p.recordingId)
        ?.export_data.find((e) => e.from === p.from && e.duration === p.duration && e.status !== 'PROCESSING');
      if (!entry?.video_id) continue;
      this.pending = this.pending.filter((x) => x !== p);
      done = true;
      const video = await client.getVideo(entry.video_id, signal);
      if (entry.status === 'EXPORTED') {
        this.on.converted(video);
        this.emit('clip-ready', { recordingId: p.recordingId, entry, video });
      } else {
        const reason = video.failure_reason ?? '';
        this.on.failed(reason);
        this.emit('clip-failed', { recordingId: p.recordingId, entry, reason });
      }
    }
    // A video made from the stream is read again until it is ready (or failed): its poster and play button wait for it.
    if (done || this.videos.some(unfinished)) {
      this.videos = await client.listConvertedVideos(streamId, signal);
      this.host.requestUpdate();
    }
  }
}
