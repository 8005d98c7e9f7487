import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { Player } from './hls.js';

type HlsModule = typeof import('./hls.js');

/**
 * The players of an element, one per slot (a preview's video id, the clipper's `recording` and `result`): hls.js is
 * imported the first time one plays (hls.ts, a chunk of its own), a slot given a new source drops its old player,
 * and every player is destroyed when the host disconnects. Whether hls.js or the browser's own HLS plays is hls.ts's
 * choice (hls.js first).
 */
export class HlsController implements ReactiveController {
  private readonly slots = new Map<string, { source: string; player?: Player }>();

  constructor(host: ReactiveControllerHost) {
    host.addController(this);
  }

  /** Whether `slot` plays `source` (or is loading hls.js for it). */
  plays(slot: string, source: string): boolean {
    return this.slots.get(slot)?.source === source;
  }

  /**
   * Plays `source` in `slot` with `start` once hls.js is loaded, unless the slot has moved on by then; `unplayable`
   * is told when neither hls.js nor the browser can play HLS (or hls.js cannot load).
   */
  play(slot: string, source: string, start: (hls: HlsModule) => Player, unplayable: () => void): void {
    if (this.plays(slot, source)) return;
    this.stop(slot);
    const entry: { source: string; player?: Player } = { source };
    this.slots.set(slot, entry);
    import('./hls.js').then(
      (hls) => {
        if (this.slots.get(slot) !== entry) return;
        try {
          entry.player = start(hls);
        } catch {
          unplayable();
        }
      },
      () => this.slots.get(slot) === entry && unplayable(),
    );
  }

  stop(slot: string): void {
    this.slots.get(slot)?.player?.destroy();
    this.slots.delete(slot);
  }

  hostDisconnected(): void {
    for (const slot of [...this.slots.keys()]) this.stop(slot);
  }
}
