import { DEFAULT_PARALLEL_UPLOADS } from '../options.js';

/**
 * How many chunk PUTs run at once: per file a target that adapts to the measured rate, and for the page the browser's
 * limits. Every PUT of @uppy/aws-s3 asks here for its turn once its URL, and so its host, is known
 * (aws-s3-options.ts, `uploadPartBytes`); Uppy's own queue (`limit`) is left at the most that could ever run
 * (`queueLimit`), so that its pause on a 429 or an expired URL still works as Uppy means it.
 *
 * Per file, with `parallel-uploads` unset: start at `START_CONNECTIONS` (six, what a fixed default used to be). Once
 * every connection of a level is under way and past TCP's slow start, the bytes the file sends are measured for
 * `MEASURE_MS` (a level held that is still settling, by the window's later half: `SETTLING`). Then twice as many
 * connections are tried (as many as the hosts and the ceiling allow), and kept when they raise the rate by `GAIN` of
 * what each added one would add at the level's own rate, and by `MIN_RAISE` at least
 * (`r(m) ≥ r(n)·(1 + max(GAIN·(m-n)/n, MIN_RAISE))`): that is where loss holds back each connection, and each one more
 * adds its own. The first time they do not, the level held is measured again (its rate may have been measured as its
 * connections started), and they are kept at once if they beat it so; otherwise they are tried against it again, then
 * half as many more, down to one more; when even one more does not, the level stays, and one fewer is tried: kept while
 * it holds `HOLD` of the rate, as on a clean link, where two or three fill it and the others only split it. Where one
 * fewer falls short, the level before it stays, and the next try waits `BACKOFF_MS`, twice as long each time. A level
 * never moves once fewer chunks are left to start than it has connections: the last chunks' falling rate says nothing
 * about the link; a level being tried then is given up for the one held. Before it, a try of more is cut to half the
 * chunks left to start, as many as the tail leaves time to judge (`more`), and with no room for one more, one fewer is
 * tried.
 *
 * Doubling, not one more at a time: a 256 MiB upload lasts about 25 s on a 100 Mbit/s link at 0.1 % loss, and one
 * judged step at a time reached seven in it where twelve were worth 28 % more (docs/benchmarks.md, "Past six
 * connections"). Chunks are planned for the ceiling (uppy-controller.ts), so a new level takes hold within seconds.
 *
 * For the page: at most `PER_HOST` PUTs to one host (Chromium and Firefox pool six connections per host and port; a
 * seventh would queue in the browser and send nothing), and at most `max-parallel-uploads` in all. A file never tries
 * more connections than the hosts seen on the page allow. With `parallel-uploads` set, every file's level is that
 * number and never moves.
 *
 * A version that began lower and grew lost seconds at every level (docs/benchmarks.md, "Growing parallelism during an
 * upload"): so the start is six.
 */

/** Chunk PUTs of a file at once when its upload starts (fewer if `max-parallel-uploads` says so): the old default. */
export const START_CONNECTIONS = DEFAULT_PARALLEL_UPLOADS;
/** Chromium's and Firefox's connections per host and port over HTTP/1.1. */
export const PER_HOST = 6;
/**
 * Once every connection of a level is under way, the time they get before counting: a new connection leaves TCP's slow
 * start, and the one that left has its last bytes out. The same for every level, so that where the chunks run in step
 * (they start together) each level is counted at the same point of their lives: the last MB of a chunk go into the
 * socket's buffer at once, and then nothing until its answer.
 */
export const SETTLE_MS = 2500;
/** How long the bytes sent at one level are counted. */
export const MEASURE_MS = 3000;
/**
 * A level held whose window's later half sent less than this share of the whole window's rate is still settling, and
 * is judged by that later half: at loss, connections that have just started send at the link's pace until their first
 * losses and then fall to what loss leaves them (six at 0.1 %: 11.1 then 7.6 MB/s in one window), and twelve judged
 * against such a six were given up, and kept only once six had been measured again, seconds later.
 */
export const SETTLING = 0.9;
/** The share of what the added connections would add at the level's rate each that they must add to be kept. */
export const GAIN = 0.15;
/** The least raise that keeps more connections: less is within what two measurements of one level differ by. */
export const MIN_RAISE = 0.05;
/** The share of the rate one fewer must keep to be kept. */
export const HOLD = 0.97;
/** The wait before trying again after a try fell short; doubled each time, up to `MAX_BACKOFF_MS`. */
export const BACKOFF_MS = 10_000;
export const MAX_BACKOFF_MS = 80_000;
/** A file with no PUT under way for this long was paused (or offline): its level is measured afresh. */
export const IDLE_MS = 1000;
/**
 * A PUT runs this long, and as long as a second one would take, before the endgame judges its pace: its first moments
 * say little (its connection's start, the socket's buffers filling). Judged after 0.5 s alone, a 5 MiB chunk on the
 * clean link got a twin 0.7 s after it started, and answered 13 ms after it.
 */
export const TWIN_AFTER_MS = 500;
/** What a second PUT of a chunk costs before its bytes go: its request and first round trips. */
export const TWIN_START_MS = 150;
/** A twin is sent when the PUT would end this much later than it, and twice as late at least. */
export const TWIN_GAIN_MS = 500;
/** How often the endgame looks again, progress or not (a stalled connection reports none). */
export const ENDGAME_EVERY_MS = 250;

/** A chunk PUT under way, as the endgame sees it (`fly`). */
export interface Flight {
  size: number;
  /** Bytes it sent so far. */
  loaded: number;
  /** Starts a second PUT of the same bytes in a turn given for it; `release` ends that turn. */
  twin: (release: () => void) => void;
}
interface Flying extends Flight {
  host: string;
  started: number;
  twinned?: boolean;
}

type Try = 'level' | 'more' | 'fewer';

/** Whether `m` connections at `rate` are worth keeping over `n` at `base` (the rule above). */
const raises = (rate: number, m: number, base: number, n: number) =>
  rate >= base * (1 + Math.max((GAIN * (m - n)) / n, MIN_RAISE));

interface FileLevel {
  /** The order it began in, from 1 (its performance marks name it so). */
  number: number;
  /** Connections this file may have now. */
  n: number;
  /** While more are tried: the level held, whose rate they must beat. */
  base: number;
  /** Its PUTs under way. */
  active: number;
  /** Chunks left to start after the last one that took a turn. */
  left: number;
  /** Bytes its PUTs sent so far. */
  sent: number;
  /** What the current level is measured for: the rate of the level held, one more, or one fewer. */
  trying: Try;
  /** When every connection of the level first ran at once; undefined until then. */
  full?: number;
  /** Where the measurement began, and where its later half began. */
  from?: { at: number; sent: number };
  half?: { at: number; sent: number };
  /** The rate of the level held, bytes per ms; 0 until the first is measured. */
  rate: number;
  /** The rate one fewer must keep: that of the level held before the tries downwards began. */
  best: number;
  /** No try before this time. */
  waitUntil: number;
  backoff: number;
  idleSince?: number;
  /** Fewer chunks were left to start than it had connections: the level no longer moves. */
  tail?: boolean;
  /** The level held was measured again after more first fell short of it (`decide`). */
  again?: boolean;
  /** While the level held is measured again: the more that fell short, and their rate, judged against it then. */
  tried?: { n: number; rate: number };
  /** Its chunk PUTs under way (the endgame's). */
  flights: Set<Flying>;
  /** The rate of this file's chunk PUT that answered last, from its start to its answer: bytes per ms. */
  pace: number;
  /** A second PUT of one of its chunks is under way. */
  twinning?: boolean;
  /** The endgame's next look. */
  look?: ReturnType<typeof setTimeout>;
}

interface Waiter {
  file: FileLevel | undefined;
  host: string;
  left: number;
  go: () => void;
}

export interface ConnectionLimits {
  /** `parallel-uploads`: a fixed number, or null to adapt. */
  fixed: () => number | null;
  /** `max-parallel-uploads`. */
  ceiling: () => number;
}

export class ConnectionController {
  private readonly files = new Map<string, FileLevel>();
  private began = 0;
  private readonly hosts = new Map<string, number>();
  private active = 0;
  private readonly waiting: Waiter[] = [];
  /** Called when `queueLimit` grows (a new host was seen): the caller lets Uppy's queue start more. */
  onQueueLimit?: () => void;

  constructor(
    private readonly limits: ConnectionLimits,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Requests Uppy's queue should let in at once: every turn this controller could give, and one waiting per host. */
  get queueLimit(): number {
    // One more per host: chunks alternate over the hosts, and a PUT waiting for a host that has its six would
    // otherwise hold Uppy's last place while the other host has a free one (eleven of twelve under way, measured).
    return (this.limits.fixed() ?? this.most()) + this.hosts.size;
  }

  /** Connections the file may have now (its URLs are fetched that far ahead). */
  level(fileKey: string): number {
    return this.limits.fixed() ?? this.files.get(fileKey)?.n ?? this.firstLevel();
  }

  /**
   * Waits for a turn to PUT to `host`; the answer ends the turn, however the PUT ends. `fileKey` names the file
   * whose level counts (a chunk's session), undefined for a single link; `left` is how many of its chunks come after
   * this one (so, once this one has its turn, how many have not started).
   */
  async acquire(host: string, fileKey?: string, left = 0, signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    if (!this.hosts.has(host)) {
      const before = this.queueLimit;
      this.hosts.set(host, 0);
      if (this.queueLimit > before) this.onQueueLimit?.();
    }
    const file = fileKey === undefined ? undefined : this.fileLevel(fileKey);
    if (file) {
      // A file that sent nothing for a while was paused: the rate measured before says nothing now.
      if (file.active === 0 && file.idleSince !== undefined && this.now() - file.idleSince >= IDLE_MS) {
        this.unmeasured(file);
      }
    }
    if (this.waiting.length > 0 || !this.allowed(file, host)) {
      await new Promise<void>((resolve, reject) => {
        const waiter: Waiter = { file, host, left, go: () => (signal?.removeEventListener('abort', stop), resolve()) };
        const stop = () => {
          const at = this.waiting.indexOf(waiter);
          if (at >= 0) this.waiting.splice(at, 1);
          reject(signal!.reason);
        };
        signal?.addEventListener('abort', stop, { once: true });
        this.waiting.push(waiter);
        this.wake();
      });
    } else this.begin(file, host, left);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.end(file, host);
    };
  }

  /** Bytes a file's PUT just sent (a difference, not its running total). */
  sent(fileKey: string, bytes: number): void {
    const file = this.files.get(fileKey);
    if (!file) return;
    file.sent += bytes;
    this.observe(file);
    this.endgame(file);
  }

  /**
   * Once every chunk of a file has started, a PUT that would end much later, at its pace so far, than a second one of
   * the same bytes begun now at the pace of the PUT that answered last gets one (BitTorrent's endgame): a connection
   * that stalls (a lost route, a Wi-Fi hand-over; TCP may take minutes to give up) no longer holds the whole file.
   * Whichever answers first wins. A slow connection of a lossy link is not one: the PUT that answered last had its
   * pace too (twins judged by the fastest PUT of the file lost both races they ran at 0.1 % loss,
   * docs/benchmarks.md). One twin at a time per file, in a turn free now: never ahead of another chunk.
   */
  private endgame(file: FileLevel): void {
    if (file.left > 0 || file.flights.size === 0) return;
    file.look ??= setTimeout(() => {
      file.look = undefined;
      this.endgame(file);
    }, ENDGAME_EVERY_MS);
    if (file.twinning || file.pace === 0 || this.waiting.some((w) => w.file === file)) return;
    const now = this.now();
    let slowest: Flying | undefined;
    let slack = TWIN_GAIN_MS;
    for (const f of file.flights) {
      const ms = now - f.started;
      const twin = TWIN_START_MS + f.size / file.pace;
      if (f.twinned || ms < Math.max(TWIN_AFTER_MS, twin) || f.loaded >= f.size) continue;
      const left = f.loaded > 0 ? ((f.size - f.loaded) * ms) / f.loaded : Infinity;
      if (left >= 2 * twin && left - twin > slack) [slowest, slack] = [f, left - twin];
    }
    if (!slowest || !this.allowed(file, slowest.host)) return;
    slowest.twinned = true;
    file.twinning = true;
    this.begin(file, slowest.host, 0);
    // A PUT that has sent nothing yet has no end to compare (`slack` is Infinity): the mark says so.
    const sooner = Number.isFinite(slack) ? `${(slack / 1000).toFixed(2)} s sooner` : 'its PUT has sent nothing';
    performance.mark(`connections, file ${file.number}: a twin, ${sooner}`);
    let ended = false;
    slowest.twin(() => {
      if (ended) return;
      ended = true;
      file.twinning = false;
      this.end(file, slowest.host);
    });
  }

  /**
   * A chunk PUT of a file began (its turn taken): the endgame may give it a twin. Returns what ends it, with whether
   * it answered.
   */
  fly(fileKey: string, host: string, flight: Flight): (answered: boolean) => void {
    const file = this.files.get(fileKey);
    if (!file) return () => undefined;
    const flying: Flying = Object.assign(flight, { host, started: this.now() });
    file.flights.add(flying);
    return (answered) => {
      file.flights.delete(flying);
      const ms = this.now() - flying.started;
      if (answered && ms > 0) file.pace = flying.size / ms;
      this.endgame(file);
    };
  }

  /**
   * A chunk PUT under way failed and is sent again after `delayMs` (api/retry.ts): the endgame judges it from that
   * attempt's start, by what that attempt sends, and never while it waits. Judged by its first attempt, a PUT answered
   * 500 had sent nothing for longer than a second one would take, and its twin went with its retry: the chunk was
   * stored twice (an end-to-end run, 2026-12-07), and a twin then defies the wait a 429 or 503 asked for.
   */
  retrying(flight: Flight, delayMs: number): void {
    const flying = flight as Partial<Flying>;
    if (flying.started === undefined) return;
    flying.started = this.now() + delayMs;
    flying.loaded = 0;
  }

  /** The file's upload ended (completed, aborted): its level goes. */
  forget(fileKey: string): void {
    const file = this.files.get(fileKey);
    if (file) {
      clearTimeout(file.look);
      file.flights.clear();
    }
    this.files.delete(fileKey);
  }

  /** The most connections the hosts seen so far allow, within `max-parallel-uploads`. */
  private most(): number {
    return Math.min(this.limits.ceiling(), PER_HOST * Math.max(1, this.hosts.size));
  }

  private firstLevel(): number {
    return Math.min(START_CONNECTIONS, this.limits.ceiling());
  }

  private begin(file: FileLevel | undefined, host: string, left: number): void {
    this.active++;
    this.hosts.set(host, this.hosts.get(host)! + 1);
    if (file) {
      file.active++;
      file.left = Math.min(file.left, left);
      this.filled(file);
    }
  }

  private end(file: FileLevel | undefined, host: string): void {
    this.active--;
    this.hosts.set(host, this.hosts.get(host)! - 1);
    if (file) {
      file.active--;
      if (file.active === 0) file.idleSince = this.now();
      this.filled(file);
    }
    this.wake();
  }

  private fileLevel(fileKey: string): FileLevel {
    let file = this.files.get(fileKey);
    if (!file) {
      const n = this.firstLevel();
      file = {
        number: ++this.began,
        n,
        base: n,
        active: 0,
        left: Infinity,
        sent: 0,
        trying: 'level',
        rate: 0,
        best: 0,
        waitUntil: 0,
        backoff: BACKOFF_MS,
        flights: new Set(),
        pace: 0,
      };
      this.files.set(fileKey, file);
    }
    return file;
  }

  private allowed(file: FileLevel | undefined, host: string): boolean {
    const fixed = this.limits.fixed();
    return (
      this.hosts.get(host)! < PER_HOST &&
      this.active < (fixed ?? this.limits.ceiling()) &&
      (!file || file.active < (fixed ?? file.n))
    );
  }

  /** Gives turns, in order, to every waiting PUT that may start now. */
  private wake(): void {
    for (let i = 0; i < this.waiting.length;) {
      const waiter = this.waiting[i]!;
      if (!this.allowed(waiter.file, waiter.host)) {
        i++;
        continue;
      }
      this.waiting.splice(i, 1);
      this.begin(waiter.file, waiter.host, waiter.left);
      waiter.go();
    }
  }

  /** The file's level is measured afresh: from when its connections next all run at once. */
  private unmeasured(file: FileLevel): void {
    file.full = file.from = file.half = undefined;
  }

  /** A level is measured from when all its connections first ran at once (and no more than it has). */
  private filled(file: FileLevel): void {
    if (file.full === undefined && file.active === file.n) file.full = this.now();
  }

  /** Measures the current level as its bytes come, and decides once it has been measured long enough. */
  private observe(file: FileLevel): void {
    if (this.limits.fixed() !== null || file.tail) return;
    if (file.left < file.n) {
      // The tail: a level being tried is given up for the one held, so that the level it ends with was measured.
      file.tail = true;
      if (file.trying === 'more') file.n = file.base;
      else if (file.trying === 'fewer') file.n++;
      performance.mark(`connections, file ${file.number}: the tail, ${file.n}`);
      return;
    }
    const now = this.now();
    if (now < file.waitUntil || file.full === undefined) return;
    if (!file.from) {
      if (now - file.full >= SETTLE_MS) file.from = { at: now, sent: file.sent };
      return;
    }
    if (!file.half && now - file.from.at >= MEASURE_MS / 2) file.half = { at: now, sent: file.sent };
    if (now - file.from.at < MEASURE_MS) return;
    const whole = (file.sent - file.from.sent) / (now - file.from.at);
    const later = file.half ? (file.sent - file.half.sent) / (now - file.half.at) : whole;
    const settling = file.trying === 'level' && later < SETTLING * whole;
    this.decide(file, settling ? later : whole, settling);
  }

  private decide(file: FileLevel, rate: number, settling: boolean): void {
    const { n, trying } = file;
    this.judge(file, rate);
    // A User Timing mark for each decision (a handful per upload), as DevTools' performance panel and the link bench's
    // timeline show them; files by the order they began, never by their session's key.
    performance.mark(
      `connections, file ${file.number}: ${n} (${trying}) sent ${(rate / 1000).toFixed(2)} MB/s${settling ? ' (its later half)' : ''}; ${file.n} (${file.trying})`,
    );
  }

  private judge(file: FileLevel, rate: number): void {
    const most = this.most();
    if (file.trying === 'level') {
      const { tried } = file;
      file.tried = undefined;
      if (tried && raises(tried.rate, tried.n, rate, file.n)) {
        // The more that fell short beat the level held as measured again: both are measured, so they are kept now;
        // tried once more, near the tail they could be cut to what is left to judge (S3 at 0.1 % loss, 2026-12-07).
        file.n = tried.n;
        this.keep(file, tried.rate, most);
        return;
      }
      file.rate = file.best = rate;
      // With no room for more (one host and six under way), the clean link's question is still worth asking.
      if (file.n < most) this.tryMore(file, most);
      else this.tryFewer(file);
    } else if (file.trying === 'more') {
      const added = file.n - file.base;
      if (raises(rate, file.n, file.rate, file.base)) this.keep(file, rate, most);
      else if (!file.again) {
        // The level held may have been measured as its connections started, and a connection sends its first MB
        // faster than it goes on (TCP's start, its socket's buffer filling): more are judged against it measured again.
        file.again = true;
        file.tried = { n: file.n, rate };
        this.try(file, file.base, 'level');
      } else if (added > 1) this.more(file, file.base + Math.floor(added / 2));
      else {
        file.n = file.base;
        this.tryFewer(file);
      }
    } else if (rate >= HOLD * file.best) {
      file.rate = rate;
      this.tryFewer(file);
    } else this.hold(file, file.n + 1);
  }

  /** Keeps the level tried, measured at `rate`, and tries more from it while the hosts and the ceiling allow. */
  private keep(file: FileLevel, rate: number, most: number): void {
    file.rate = file.best = rate;
    file.backoff = BACKOFF_MS;
    if (file.n < most) this.tryMore(file, most);
    else this.hold(file, file.n);
  }

  /** Twice the level, within what the hosts and the ceiling allow. */
  private tryMore(file: FileLevel, most: number): void {
    file.base = file.n;
    this.more(file, Math.min(most, 2 * file.n));
  }

  /**
   * Tries `n`, more than the level held, or as many as the tail leaves time to judge: each connection of a try takes
   * about one chunk while it settles and one while it is measured. A try begun later was given up a moment after, its
   * PUTs already under way: a clean link ended at twelve (docs/benchmarks.md, "Runs of 2026-12-06"). With no room for
   * even one more, the level held stays and one fewer is tried, as when the hosts allow no more.
   */
  private more(file: FileLevel, n: number): void {
    const judged = Math.min(n, Math.floor(file.left / 2));
    if (judged > file.base) this.try(file, judged, 'more');
    else {
      file.n = file.base;
      this.tryFewer(file);
    }
  }

  private tryFewer(file: FileLevel): void {
    if (file.n > 1) this.try(file, file.n - 1, 'fewer');
    else this.hold(file, 1);
  }

  private try(file: FileLevel, n: number, trying: Try): void {
    file.n = n;
    file.trying = trying;
    this.unmeasured(file);
    this.filled(file);
    this.wake();
  }

  /** Keeps `n` and waits before trying again, each time twice as long; then its rate is measured afresh. */
  private hold(file: FileLevel, n: number): void {
    file.waitUntil = this.now() + file.backoff;
    file.backoff = Math.min(2 * file.backoff, MAX_BACKOFF_MS);
    this.try(file, n, 'level');
  }
}
