/** Chunk PUTs under way at once when an upload starts (fewer if `parallel-uploads` says so). */
export const RAMP_START = 2;
/** Once every PUT of an added level is under way, the time its new connection gets to speed up before counting. */
export const RAMP_SETTLE_MS = 500;
/**
 * The same for the first level. A new connection starts in slow start and can go far faster than loss lets
 * it go on (one sent its first 11 MiB at 7.6 MB/s over a link where it kept 1.4 MB/s), so the first level is
 * counted once that is over, or each level added after it would seem to add nothing.
 */
export const RAMP_FIRST_SETTLE_MS = 2000;
/** How long the bytes sent at one level are counted to measure its throughput. */
export const RAMP_WINDOW_MS = 1500;
/** With no chunk PUT under way for this long, the next one starts at `RAMP_START` again (a new network, maybe). */
export const RAMP_IDLE_MS = 2000;

/** The share of its speed each connection must keep, on average, when one more joins, for the ramp to go on. */
export const RAMP_KEEP = 0.85;

/**
 * How many chunk PUTs run at once, up to `parallel-uploads`: two at first, then one more each time the
 * connections under way are measured to go, on average, at least `RAMP_KEEP` of the speed that one fewer had
 * (with three: 1.275 × the throughput of two; with five: 1.06 × that of four). Where loss holds each connection
 * back, each keeps its speed and the ramp goes on. A level that falls short is measured again, window after
 * window, against the same figure: one connection's speed under loss varies a lot from second to second,
 * while a link that is full gives the same figure every time, and never passes.
 *
 * Where loss limits each TCP connection, every connection adds its own share (bench/link.bench.ts at 0.1 %
 * loss: 2.9, 4.2, 5.3 and 7.1 MB/s with 2, 3, 4 and 6 at once), and the ramp goes on to the limit. On a
 * clean link two connections already fill it, and each one more only splits it further: when the others
 * finish, the last one runs alone at its small share for seconds while CUBIC grows its window back, which
 * cost six connections 3–4 % of the link against two or three.
 *
 * `sent` takes the bytes of every chunk PUT as they go; the decisions are taken there, so a level whose PUTs
 * send nothing (held, stalled) stays as it is.
 */
export class ConnectionRamp {
  #level = RAMP_START;
  #active = 0;
  readonly #waiting: (() => void)[] = [];
  /** Bytes sent by all chunk PUTs since this ramp began. */
  #sent = 0;
  /** When every PUT of the current level first ran at once; undefined until then. */
  #full: number | undefined;
  /** Where the current level's window began: time and bytes sent. */
  #window: { at: number; sent: number } | undefined;
  /** Throughput at the level before (the mean of its windows), bytes per ms; 0 at the first level. */
  #rate = 0;
  /** Throughput of each window at the current level, bytes per ms. */
  #rates: number[] = [];
  #idleSince = -Infinity;

  constructor(
    private readonly max: () => number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Chunk PUTs allowed at once now. */
  get level(): number {
    return Math.max(1, Math.min(this.#level, this.max()));
  }

  /** Waits for a turn to send a chunk; call `release` when its PUT ends, however it ends. */
  async acquire(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    if (this.#active === 0 && this.#waiting.length === 0 && this.now() - this.#idleSince >= RAMP_IDLE_MS)
      this.#restart();
    if (this.#active < this.level) return this.#start();
    // #wake counts it as under way before it resolves.
    await new Promise<void>((resolve, reject) => {
      const go = () => {
        signal?.removeEventListener('abort', stop);
        resolve();
      };
      const stop = () => {
        this.#waiting.splice(this.#waiting.indexOf(go), 1);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', stop, { once: true });
      this.#waiting.push(go);
    });
  }

  release(): void {
    this.#active--;
    if (this.#active === 0) this.#idleSince = this.now();
    this.#wake();
  }

  /** Bytes a chunk PUT just sent (a difference, not its running total). */
  sent(bytes: number): void {
    this.#sent += bytes;
    if (this.#level >= this.max() || this.#full === undefined) return;
    const now = this.now();
    if (!this.#window) {
      const settle = this.#rate > 0 ? RAMP_SETTLE_MS : RAMP_FIRST_SETTLE_MS;
      if (now - this.#full >= settle) this.#window = { at: now, sent: this.#sent };
      return;
    }
    if (now - this.#window.at < RAMP_WINDOW_MS) return;
    const rate = (this.#sent - this.#window.sent) / (now - this.#window.at);
    this.#rates.push(rate);
    // The first level has nothing to compare with.
    if (this.#rate > 0 && rate < ((this.#rate * RAMP_KEEP) / (this.#level - 1)) * this.#level) {
      this.#window = { at: now, sent: this.#sent };
      return;
    }
    this.#rate = this.#rates.reduce((a, b) => a + b) / this.#rates.length;
    this.#rates = [];
    this.#level++;
    this.#full = undefined;
    this.#window = undefined;
    this.#wake();
  }

  #start(): void {
    this.#active++;
    if (this.#full === undefined && this.#active >= this.level) this.#full = this.now();
  }

  #wake(): void {
    while (this.#waiting.length > 0 && this.#active < this.level) {
      this.#start();
      this.#waiting.shift()!();
    }
  }

  #restart(): void {
    this.#level = RAMP_START;
    this.#rate = 0;
    this.#rates = [];
    this.#full = undefined;
    this.#window = undefined;
  }
}
