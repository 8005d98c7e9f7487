/**
 * The shrinking worker: Mediabunny (WebCodecs) re-encodes a picked video to fit `max-upload-resolution`, off the
 * page's thread. It probes (can this browser do it, and how fast) and converts; the output, a fragmented MP4
 * (encode.ts; a lossless trim's is a plain one, cut.ts), is cut into the upload's chunks as it is written
 * (part-cutter.ts) and each chunk is handed to the page, which PUTs it. At most `window` chunks are with the page at once: past that the cutter waits, and the
 * muxer and the encoders wait with it, so memory does not grow with the video's length.
 */
import { BlobSource, Input, MATROSKA, MP4, Mp4OutputFormat, QTFF, StreamTarget, WEBM } from 'mediabunny';
import { cutExact, CutRefused } from './cut.js';
import { encodeTo, encoderConfigFor, type EncodePlan } from './encode.js';
import { partCutter, type PositionedWrite } from './part-cutter.js';
import type { AsIsReason, Box, FromWorker, Probe, ToWorker, Trim, VideoFacts } from './protocol.js';

/**
 * Bits per pixel per frame of the output: 1920×1080 at 30 fps is 6.2 Mbit/s, which scored an SSIM of 0.99 against
 * ffmpeg's scale of a 4K source here (docs/benchmarks.md). Never more than the source's own rate.
 */
const BITS_PER_PIXEL = 0.1;
/** Seconds between the output's keyframes: the service's HLS segments are 4 s, so each starts on one. */
const KEY_FRAME_SECONDS = 2;

/** `self` as a worker's: the DOM types this project compiles with call it a window. */
const scope = self as unknown as { postMessage(message: FromWorker, transfer: Transferable[]): void };
const post = (message: FromWorker, transfer: Transferable[] = []) => scope.postMessage(message, transfer);

class AsIs extends Error {
  constructor(
    readonly reason: AsIsReason,
    message: string = reason,
    readonly facts?: VideoFacts,
  ) {
    super(message);
  }
}

const even = (n: number) => Math.max(2, Math.round(n / 2) * 2);

/** The containers read: what phones, cameras, editors and MediaRecorder write. */
const FORMATS = [MP4, QTFF, MATROSKA, WEBM];

/** How much a `width`×`height` frame is scaled to fit `box` side by side, whatever the orientation (1: it fits). */
const scaleFor = (width: number, height: number, box: Box) =>
  Math.min(1, box.long / Math.max(width, height), box.short / Math.min(width, height));

interface Plan extends EncodePlan {
  input: Input;
  facts: VideoFacts;
  outWidth: number;
  outHeight: number;
}

/**
 * What to make of `file` to fit `box` (none: its own size) and keep `trim`, or why it goes as it is. A trim alone
 * that cut.ts refused re-encodes at the source's size and rate.
 */
async function planFor(file: Blob, box: Box | null, trim?: Trim): Promise<Plan> {
  if (typeof VideoEncoder === 'undefined' || typeof VideoDecoder === 'undefined') throw new AsIs('no-webcodecs');
  const input = new Input({ source: new BlobSource(file), formats: FORMATS });
  const track = await input.getPrimaryVideoTrack().catch(() => null);
  if (!track) throw new AsIs('unreadable');
  const [width, height] = [track.displayWidth, track.displayHeight];
  const [duration, stats] = await Promise.all([input.computeDuration(), track.computePacketStats(120)]);
  const facts = { duration, frameRate: stats.averagePacketRate || 30, width, height };
  const scale = box ? scaleFor(width, height, box) : 1;
  if (scale >= 1 && !trim) throw new AsIs('fits', 'fits', facts);
  if (!(await track.canDecode()))
    throw new AsIs('undecodable', `${track.codec ?? 'its'} video cannot be decoded here`, facts);
  // The sound is copied: a video whose sound an MP4 cannot hold is sent as it is, not without its sound.
  const audio = await input.getPrimaryAudioTrack();
  if (audio && !(audio.codec && new Mp4OutputFormat().getSupportedCodecs().includes(audio.codec)))
    throw new AsIs('no-encoder', `its ${audio.codec ?? 'unknown'} sound cannot be kept`, facts);
  const [outWidth, outHeight] = [even(width * scale), even(height * scale)];
  const sourceRate = (file.size * 8) / duration;
  const wanted = scale < 1 ? BITS_PER_PIXEL * outWidth * outHeight * facts.frameRate : sourceRate;
  // The encoder's frame is the source's before its rotation, which the output keeps as the source has it.
  const turned = track.rotation % 180 !== 0;
  const [encodeWidth, encodeHeight] = turned ? [outHeight, outWidth] : [outWidth, outHeight];
  const bitrate = Math.round(Math.min(wanted, sourceRate));
  const config = await encoderConfigFor(encodeWidth, encodeHeight, facts.frameRate, bitrate);
  if (!config) throw new AsIs('no-encoder', 'no-encoder', facts);
  return {
    input,
    facts,
    outWidth,
    outHeight,
    width: encodeWidth,
    height: encodeHeight,
    config,
    keyFrameSeconds: KEY_FRAME_SECONDS,
    trim,
  };
}

/** Converts the first `seconds` of the file, keeping nothing, to time this device's encoder. */
async function probe(file: Blob, box: Box | null, seconds: number): Promise<Probe> {
  try {
    const plan = await planFor(file, box);
    let written = 0;
    const counter = new WritableStream<PositionedWrite>({
      write: ({ data, position }) => void (written = Math.max(written, position + data.byteLength)),
    });
    const until = Math.min(seconds, plan.facts.duration);
    // The encoder's pace is timed between the first and the last quarter of its frames: past the codecs' warm-up,
    // before the burst its last frames come in when it is flushed (its pipeline holds a few). Timed from the first
    // frame to the last, it came out 25 % slower than the whole conversion in the bench. The start (opening the file,
    // starting the codecs) is a cost of its own, paid once however long the video.
    const started = performance.now();
    const times: number[] = [];
    await encodeTo(plan.input, new StreamTarget(counter), plan, {
      until,
      onProgress: () => times.push(performance.now()),
    });
    const [from, to] = [Math.floor(times.length / 4), Math.floor((times.length * 3) / 4)];
    return {
      shrinks: true,
      facts: plan.facts,
      outWidth: plan.outWidth,
      outHeight: plan.outHeight,
      videoCodec: plan.config.codec.startsWith('avc') ? 'avc' : 'vp9',
      encodeFps:
        to > from
          ? ((to - from) * 1000) / (times[to]! - times[from]!)
          : times.length / ((performance.now() - started) / 1000),
      startSeconds: ((times[0] ?? started) - started) / 1000,
      outBytesPerSecond: written / until,
    };
  } catch (err) {
    if (err instanceof AsIs) return { shrinks: false, reason: err.reason, message: err.message, facts: err.facts };
    return { shrinks: false, reason: 'unreadable', message: (err as Error).message };
  }
}

/** Chunks handed to the page and not yet sent; the cutter waits while `window` of them are out. */
let out = 0;
let room: (() => void) | undefined;

async function convert(file: Blob, box: Box | null, trim: Trim | undefined, chunkSize: number, window: number) {
  let chunks = 0;
  let size = 0;
  const hand = async (chunkId: number, bytes: Uint8Array) => {
    while (out >= window) await new Promise<void>((resolve) => (room = resolve));
    out++;
    chunks++;
    size += bytes.byteLength;
    // A held chunk 1 is a view of the cutter's own buffer: copied once, the others are handed over whole.
    const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
    post({ type: 'chunk', chunkId, bytes: whole.buffer as ArrayBuffer }, [whole.buffer]);
  };
  let told = 0;
  const progress = (fraction: number) => {
    // Called for every frame: the page hears of each half per cent.
    if (fraction - told < 0.005) return;
    told = fraction;
    post({ type: 'progress', fraction, written: size });
  };
  // A trim that keeps the frame size is cut without loss where it can be (cut.ts): its packets copied, only the
  // frames before the first copied keyframe re-encoded. Refused before a byte is written, it is re-encoded whole.
  if (trim && !(await shrinks(file, box))) {
    const input = new Input({ source: new BlobSource(file), formats: FORMATS });
    const cutter = partCutter(chunkSize, hand, { patched: true });
    const cut = await cutExact(input, new StreamTarget(cutter), { ...trim, onProgress: progress }).then(
      () => true,
      (err: unknown) => {
        if (err instanceof CutRefused) return false;
        throw err;
      },
    );
    if (cut) return post({ type: 'done', size, chunks });
  }
  const plan = await planFor(file, box, trim);
  await encodeTo(plan.input, new StreamTarget(partCutter(chunkSize, hand, { patched: false })), plan, {
    onProgress: progress,
  });
  post({ type: 'done', size, chunks });
}

/** Whether `file`'s frame is larger than `box`. */
async function shrinks(file: Blob, box: Box | null): Promise<boolean> {
  if (!box) return false;
  const track = await new Input({ source: new BlobSource(file), formats: FORMATS }).getPrimaryVideoTrack();
  return track !== null && scaleFor(track.displayWidth, track.displayHeight, box) < 1;
}

self.onmessage = (event: MessageEvent<ToWorker>) => {
  const message = event.data;
  switch (message.type) {
    case 'probe':
      void probe(message.file, message.box, message.seconds).then((result) => post({ type: 'probed', probe: result }));
      break;
    case 'convert':
      convert(message.file, message.box, message.trim, message.chunkSize, message.window).catch((err: unknown) =>
        post({ type: 'failed', message: (err as Error).message ?? String(err) }),
      );
      break;
    case 'sent':
      out--;
      room?.();
      room = undefined;
      break;
  }
};
