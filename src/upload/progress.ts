/** How often the bytes sent reach Uppy (and so the Dashboard and the `upload-progress` event), at most. */
export const PROGRESS_INTERVAL_MS = 100;

/**
 * The progress of every PUT under way, handed on together at most once per interval. Each report to Uppy
 * re-renders the Dashboard (Uppy debounces its render to one per task only). Chromium and Firefox fire an
 * upload's progress about every 50 ms, so six chunk PUTs at once drew the Dashboard over a hundred times a
 * second, and WebKit fires far more often; a report that waits keeps only its latest figure. `flush` hands
 * one on at once, for the end of a PUT, so that a chunk's last figure arrives before it counts as done.
 */
export class ProgressBatch<E> {
  private readonly pending = new Map<(ev: E) => void, E>();
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly intervalMs = PROGRESS_INTERVAL_MS) {}

  queue(report: (ev: E) => void, ev: E): void {
    this.pending.set(report, ev);
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      const due = [...this.pending];
      this.pending.clear();
      for (const [to, latest] of due) to(latest);
    }, this.intervalMs);
  }

  flush(report: (ev: E) => void): void {
    if (!this.pending.has(report)) return;
    const ev = this.pending.get(report)!;
    this.pending.delete(report);
    report(ev);
  }
}
