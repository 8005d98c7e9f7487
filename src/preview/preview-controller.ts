import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { VideoServiceClient } from '../api/client.js';
import { isAbort } from '../api/errors.js';
import type { VideoDetails } from '../api/types.js';
import type { Emit } from '../events.js';
import { HlsController } from './hls-controller.js';
import { pollVideo } from './poll.js';

export interface Preview {
  videoId: string;
  name: string;
  state: 'processing' | 'ready' | 'failed' | 'later' | 'unplayable';
  video?: VideoDetails;
  reason?: string;
}

/**
 * After an upload: polls #8 while the video processes, then plays `playback.hls_url` muted in the
 * element's <video data-video-id>. Polling stops and players are destroyed when the host disconnects.
 */
export class PreviewController implements ReactiveController {
  previews: Preview[] = [];
  private abort = new AbortController();
  private readonly players: HlsController;

  constructor(
    private readonly host: ReactiveControllerHost & HTMLElement,
    private readonly client: () => VideoServiceClient | null,
    private readonly emit: Emit,
  ) {
    host.addController(this);
    this.players = new HlsController(host);
  }

  track(videoId: string, name: string): void {
    const preview: Preview = { videoId, name, state: 'processing' };
    this.previews = [...this.previews.filter((p) => p.videoId !== videoId), preview];
    this.host.requestUpdate();
    void this.poll(preview);
  }

  hostConnected(): void {
    this.abort = new AbortController();
    for (const p of this.previews) if (p.state === 'processing') void this.poll(p);
  }

  hostDisconnected(): void {
    this.abort.abort();
  }

  /** Attaches a player to each ready preview's <video> once it is rendered. */
  hostUpdated(): void {
    for (const p of this.previews) {
      const url = p.video?.playback.hls_url;
      if (p.state !== 'ready' || !url || this.players.plays(p.videoId, url)) continue;
      const element = this.host.shadowRoot?.querySelector<HTMLVideoElement>(`video[data-video-id="${p.videoId}"]`);
      if (!element) continue;
      element.addEventListener('playing', () => this.emit('preview-playing', { videoId: p.videoId }), {
        once: true,
        signal: this.abort.signal,
      });
      const unplayable = (reason: string) => this.update(p, { state: 'unplayable', reason });
      this.players.play(
        p.videoId,
        url,
        ({ playHls }) => playHls(element, url, unplayable),
        () => unplayable(''),
      );
    }
  }

  private async poll(p: Preview): Promise<void> {
    const client = this.client();
    if (!client) return;
    try {
      const video = await pollVideo(client, p.videoId, this.abort.signal);
      if (!video) return this.update(p, { state: 'later' });
      if (video.status === 'ready') {
        this.update(p, { state: 'ready', video });
        this.emit('video-ready', { video });
      } else {
        // The service's own words (its language, not the page's): shown after the element's sentence.
        const reason = video.failure_reason ?? undefined;
        this.update(p, { state: 'failed', video, reason });
        this.emit('video-failed', { video, reason: reason ?? '' });
      }
    } catch (err) {
      if (!isAbort(err) && !this.abort.signal.aborted) throw err;
    }
  }

  private update(p: Preview, change: Partial<Preview>): void {
    Object.assign(p, change);
    this.previews = [...this.previews];
    this.host.requestUpdate();
  }
}
