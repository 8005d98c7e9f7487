import {
  EncodedAudioPacketSource,
  EncodedPacket,
  EncodedPacketSink,
  EncodedVideoPacketSource,
  Mp4OutputFormat,
  Output,
  VideoSampleSink,
  type Input,
  type InputAudioTrack,
  type InputVideoTrack,
  type Target,
} from 'mediabunny';

/**
 * The frame-exact trim without compression (issue 31, "smart cut"): the packets of [start, end) are copied as they
 * are, and only the frames no copied packet can show are decoded and encoded again: the group of pictures the start
 * falls in (when the start is not a keyframe) and, in a source with B-frames, the last one when the end cuts it
 * where a kept frame still needs a dropped one. A start on a keyframe copies every packet: no encoder runs at all.
 *
 * Why not Mediabunny's own trim: without a re-encode it copies from the keyframe before the start and hides the
 * lead-in with an MP4 edit list, which the service's copy to HLS drops (the video would start at that keyframe).
 * This cut writes no edit list: every packet it writes is shown, from timestamp 0.
 *
 * Why `avc3`: the re-encoded frames come from the browser's H.264 encoder, whose sequence and picture parameter sets
 * (SPS/PPS) differ from the source's, and an `avc1` track has one set for all its samples. An `avc3` track carries
 * them in the samples: each keyframe this cut writes is preceded by its own SPS and PPS, so every reader (ffmpeg's
 * copy to MPEG-TS and HLS, hls.js, the browsers' decoders) switches sets at the keyframe where they change.
 * A pure copy keeps the source's `avc1` and its packets byte for byte.
 */

/** What the caller can do about a refusal: send the original, or re-encode the whole range with a conversion. */
export class CutRefused extends Error {
  override name = 'CutRefused';
  constructor(
    /** `no-video`: nothing to cut frames of; `codec`: frames must be re-encoded and the browser cannot encode the
     * source's codec as an MP4 keeps it (only H.264 is re-encoded); `container`: MP4 cannot hold the source's codecs. */
    readonly reason: 'no-video' | 'codec' | 'container',
    message: string,
  ) {
    super(message);
  }
}

export interface CutOptions {
  /** Seconds on the input's timeline; the frame shown at `start` is the output's first frame. */
  start: number;
  /** Seconds; frames that start at or after `end` are left out. */
  end: number;
  /** 0..1, as the video is written. */
  onProgress?: (fraction: number) => void;
  signal?: AbortSignal;
}

export interface CutResult {
  /** Video frames written. */
  frames: number;
  /** Of them, decoded and encoded again (0 for a pure copy). */
  reencodedFrames: number;
  /** Seconds from the first frame to the end of the last (the output's video length). */
  duration: number;
}

/** One video packet of the source, as the plan sees it (decode order). */
interface Frame {
  packet: EncodedPacket; // metadata only
  keep: boolean;
}

/** A group of pictures: a keyframe and the packets after it in decode order, up to the next keyframe. */
interface Gop {
  frames: Frame[];
  copy: boolean;
}

// Timestamps are seconds read from a container's integer ticks; closer than this they are the same instant.
export const SAME_INSTANT = 1e-6;

/**
 * Writes [start, end) of `input` to `target` as an MP4 (fastStart false: bytes stream out as they are written;
 * one backward write patches the mdat size at the end). Throws CutRefused before anything is written when it cannot.
 */
export async function cutExact(input: Input, target: Target, options: CutOptions): Promise<CutResult> {
  const video = await input.getPrimaryVideoTrack();
  if (!video) throw new CutRefused('no-video', 'The file has no video track to trim.');
  const audio = await input.getPrimaryAudioTrack();
  const format = new Mp4OutputFormat({ fastStart: false });
  const supported = format.getSupportedCodecs();
  if (!video.codec || !supported.includes(video.codec))
    throw new CutRefused('container', `An MP4 cannot hold the video's codec (${video.codec ?? 'unknown'}).`);
  if (audio && (!audio.codec || !supported.includes(audio.codec)))
    throw new CutRefused('container', `An MP4 cannot hold the audio's codec (${audio.codec ?? 'unknown'}).`);

  const packets = new EncodedPacketSink(video);
  const plan = await planCut(packets, options.start, options.end);
  const reencode = plan.gops.some((g) => !g.copy && g.frames.some((f) => f.keep));
  const sourceConfig = (await video.getDecoderConfig())!;
  const encoderConfig = reencode ? await encoderConfigFor(video, sourceConfig, plan) : undefined;
  options.signal?.throwIfAborted();

  const output = new Output({ format, target });
  const videoOut = new EncodedVideoPacketSource(video.codec);
  // No frame rate: it would set the track's timescale, and an average one would round a variable rate's timestamps.
  output.addVideoTrack(videoOut, { rotation: video.rotation });
  const audioOut = audio ? new EncodedAudioPacketSource(audio.codec!) : undefined;
  if (audio && audioOut) output.addAudioTrack(audioOut);
  await output.start();
  try {
    const [result] = await Promise.all([
      writeVideo(video, packets, plan, sourceConfig, encoderConfig, videoOut, options),
      audio && audioOut ? writeAudio(audio, audioOut, plan.first, options.end, options) : undefined,
    ]);
    options.signal?.throwIfAborted();
    await output.finalize();
    return result;
  } catch (err) {
    await output.cancel();
    throw err;
  }
}

interface Plan {
  /** Timestamp of the first kept frame: the output's time 0. */
  first: number;
  gops: Gop[];
  frameRate: number;
  /** Bits a second of the kept frames in the source. */
  bitrate: number;
}

/**
 * Which packets to keep and which groups of pictures can be copied, from packet metadata alone (no media is read).
 * A group is copied when its keyframe is not before the first kept frame, the group before it is copied too or none
 * of its frames is shown before its keyframe (an open GOP's leading frames need the group before), and its kept
 * frames come first in decode order (a B-frame kept before the end may need a P-frame after it that is dropped).
 */
async function planCut(packets: EncodedPacketSink, start: number, end: number): Promise<Plan> {
  const shownAtStart = await packets.getPacket(start, { metadataOnly: true });
  const firstKey = await packets.getKeyPacket(start, { metadataOnly: true, verifyKeyPackets: false });
  if (!shownAtStart || !firstKey || shownAtStart.timestamp >= end)
    throw new RangeError(`Nothing to keep between ${start} s and ${end} s.`);
  const first = shownAtStart.timestamp;
  const gops: Gop[] = [];
  for await (const packet of packets.packets(firstKey, undefined, { metadataOnly: true })) {
    // Closed GOPs: once a keyframe at or after the end begins, no later packet shows a kept frame.
    if (packet.type === 'key' && packet.timestamp >= end - SAME_INSTANT && gops.length > 0) break;
    if (packet.type === 'key' || gops.length === 0) gops.push({ frames: [], copy: false });
    const keep = packet.timestamp >= first - SAME_INSTANT && packet.timestamp < end - SAME_INSTANT;
    gops.at(-1)!.frames.push({ packet, keep });
  }
  let previousCopied = false;
  for (const gop of gops) {
    const key = gop.frames[0]!.packet;
    const startsInRange = key.timestamp >= first - SAME_INSTANT;
    const leading = gop.frames.some((f) => f.packet.timestamp < key.timestamp - SAME_INSTANT);
    const lastKept = gop.frames.findLastIndex((f) => f.keep);
    const keptFirst = gop.frames.slice(0, lastKept + 1).every((f) => f.keep);
    gop.copy = startsInRange && (previousCopied || !leading) && keptFirst;
    previousCopied = gop.copy;
  }
  const kept = gops.flatMap((g) => g.frames).filter((f) => f.keep);
  // A long video has too many frames to spread into Math.max.
  const seconds = kept.reduce((last, f) => Math.max(last, f.packet.timestamp + f.packet.duration), 0) - first;
  const bytes = kept.reduce((sum, f) => sum + f.packet.byteLength, 0);
  return { first, gops, frameRate: kept.length / seconds, bitrate: (bytes * 8) / seconds };
}

/**
 * The encoder for the re-encoded frames: H.264 at the source's coded size, profile and level where the browser has
 * them (else High, then Main, then Constrained Baseline at the source's level), at twice the source's bitrate
 * there, so the few re-encoded frames look like their neighbours. Only H.264 is re-encoded: its parameter sets can
 * travel in the samples (`avc3`); other codecs' copied and re-encoded frames could not share one track description.
 */
async function encoderConfigFor(
  video: InputVideoTrack,
  source: VideoDecoderConfig,
  plan: Plan,
): Promise<VideoEncoderConfig> {
  if (video.codec !== 'avc' || typeof VideoEncoder === 'undefined' || !(await video.canDecode()))
    throw new CutRefused(
      'codec',
      `This trim must re-encode its first frames, and this browser cannot decode and encode ${video.codec ?? 'its codec'}.`,
    );
  // The copied keyframes get parameter sets with 4-byte lengths in front, as every H.264 writer here makes them.
  if (source.description && (bytesOf(source.description)[4]! & 0x03) !== 3)
    throw new CutRefused('codec', 'This trim must re-encode its first frames, and the video uses short NAL lengths.');
  const level = source.codec.slice(-2);
  const candidates = [
    source.codec.replace(/^avc3/, 'avc1'),
    `avc1.6400${level}`,
    `avc1.4d00${level}`,
    `avc1.42e0${level}`,
  ];
  for (const codec of candidates) {
    const config: VideoEncoderConfig = {
      codec,
      width: video.codedWidth,
      height: video.codedHeight,
      bitrate: Math.max(2 * plan.bitrate, 500_000),
      framerate: plan.frameRate,
      latencyMode: 'quality',
      avc: { format: 'avc' },
    };
    // Some browsers throw instead of answering "not supported" (mediabunny#456).
    const answer = await VideoEncoder.isConfigSupported(config).catch(() => undefined);
    if (answer?.supported) return config;
  }
  throw new CutRefused(
    'codec',
    `This trim must re-encode its first frames, and this browser has no H.264 encoder for ${video.codedWidth}×${video.codedHeight}.`,
  );
}

async function writeVideo(
  video: InputVideoTrack,
  packets: EncodedPacketSink,
  plan: Plan,
  sourceConfig: VideoDecoderConfig,
  encoderConfig: VideoEncoderConfig | undefined,
  out: EncodedVideoPacketSource,
  { end, onProgress, signal }: CutOptions,
): Promise<CutResult> {
  const inBand = encoderConfig !== undefined; // avc3: parameter sets in the keyframes
  const sourceDescription = inBand ? bytesOf(sourceConfig.description!) : new Uint8Array();
  const sourceSets = inBand ? parameterSetsOf(sourceDescription) : new Uint8Array();
  const samples = new VideoSampleSink(video);
  const colorSpace = await video.getColorSpace();
  const total = end - plan.first;
  let frames = 0;
  let reencodedFrames = 0;
  let duration = 0;
  let described = false;
  const write = async (packet: EncodedPacket, parameterSets: Uint8Array) => {
    signal?.throwIfAborted();
    const timestamp = packet.timestamp - plan.first;
    const data = inBand && packet.type === 'key' ? withParameterSets(packet.data, parameterSets) : packet.data;
    const meta = described
      ? undefined
      : {
          decoderConfig: {
            ...sourceConfig,
            // avc3: the sample entry describes the first keyframe; the others carry their own sets.
            codec: inBand ? sourceConfig.codec.replace(/^avc1/, 'avc3') : sourceConfig.codec,
            description: inBand ? avcDescription(parameterSets, sourceDescription) : sourceConfig.description,
          },
        };
    described = true;
    await out.add(packet.clone({ data, timestamp }), meta);
    frames++;
    duration = Math.max(duration, timestamp + packet.duration);
    onProgress?.(Math.min(1, duration / total));
  };

  for (const gop of plan.gops) {
    const kept = gop.frames.filter((f) => f.keep);
    if (kept.length === 0) continue;
    if (gop.copy) {
      const last = gop.frames.findLastIndex((f) => f.keep);
      let index = 0;
      const key = await packets.getKeyPacket(gop.frames[0]!.packet.timestamp);
      for await (const packet of packets.packets(key!)) {
        if (index++ > last) break;
        await write(packet, sourceSets);
      }
    } else {
      const toEncode = kept.map((f) => f.packet);
      for await (const { packet, parameterSets } of reencode(samples, encoderConfig!, colorSpace, toEncode, signal)) {
        await write(packet, parameterSets);
        reencodedFrames++;
      }
    }
  }
  out.close();
  return { frames, reencodedFrames, duration };
}

/** A packet the encoder made, and the parameter sets its keyframe needs in front. */
interface Reencoded {
  packet: EncodedPacket;
  parameterSets: Uint8Array;
}

/** Decodes the source around `frames` and encodes exactly those frames, the first as a keyframe. */
async function* reencode(
  samples: VideoSampleSink,
  config: VideoEncoderConfig,
  colorSpace: VideoColorSpaceInit,
  frames: EncodedPacket[],
  signal?: AbortSignal,
): AsyncGenerator<Reencoded> {
  const done: Reencoded[] = [];
  let failed: unknown;
  let parameterSets: Uint8Array = new Uint8Array();
  // Frames to encode by their timestamp (decoded samples carry their packet's), and by the microseconds of the
  // VideoFrame sent, which the encoder's chunk keeps: the chunk then gets the source's exact timing back.
  const wanted = new Map(frames.map((f) => [f.timestamp, f]));
  const sent = new Map<number, EncodedPacket>();
  const encoder = new VideoEncoder({
    output: (chunk, meta) => {
      if (meta?.decoderConfig?.description) parameterSets = parameterSetsOf(bytesOf(meta.decoderConfig.description));
      const packet = EncodedPacket.fromEncodedChunk(chunk);
      // Firefox's encoder (x264) repeats its SPS and PPS in its keyframes, and its description holds them with
      // the NAL header byte doubled (ffmpeg: "sps_id 1 out of range"): the keyframe's own sets are the true ones.
      if (packet.type === 'key') parameterSets = inBandParameterSets(packet.data) ?? parameterSets;
      const source = sent.get(chunk.timestamp);
      // A throw here would be lost in the encoder's callback, and the frame with it.
      if (!source)
        return void (failed ??= new Error(`The encoder returned a frame at ${chunk.timestamp} µs it was not sent.`));
      done.push({ packet: packet.clone({ timestamp: source.timestamp, duration: source.duration }), parameterSets });
    },
    error: (err) => (failed = err),
  });
  encoder.configure(config);
  // In decode order: with B-frames the first is not the earliest.
  const from = frames.reduce((earliest, f) => Math.min(earliest, f.timestamp), Infinity);
  const until = frames.reduce((last, f) => Math.max(last, f.timestamp + f.duration), from);
  let first = true;
  try {
    for await (const sample of samples.samples(from, until - SAME_INSTANT)) {
      signal?.throwIfAborted();
      // Decoding starts at the keyframe before `from`: those frames are only the way there.
      const source = wanted.get(sample.timestamp);
      if (!source) {
        sample.close();
        continue;
      }
      const frame = await sourceLikeFrame(sample.toVideoFrame(), colorSpace);
      sample.close();
      sent.set(frame.timestamp, source);
      encoder.encode(frame, { keyFrame: first });
      frame.close();
      first = false;
      // A few frames in the encoder at most: memory, and a steady pace for the muxer (as Mediabunny does).
      while (encoder.encodeQueueSize > 2)
        await new Promise((resolve) => encoder.addEventListener('dequeue', resolve, { once: true }));
      if (failed) throw failed;
      yield* done.splice(0);
    }
    await encoder.flush();
    if (failed) throw failed;
    yield* done.splice(0);
  } finally {
    if (encoder.state !== 'closed') encoder.close();
  }
}

/**
 * The frame as I420 with the source's colour description, for the encoder. Why: the encoder writes the frame's
 * colour space into its SPS, and the decoder fills in one of its own where the source says none (Chromium: BT.709),
 * so the re-encoded frames would be shown in other colours than the copied ones (same pixels, another matrix); and
 * Firefox's decoder hands out RGB (made with the matrix it names) that its encoder turns back into YUV with another
 * one, shifting every colour. A frame takes a colour space only when it is made from its pixels.
 */
async function sourceLikeFrame(frame: VideoFrame, colorSpace: VideoColorSpaceInit): Promise<VideoFrame> {
  const rect = frame.visibleRect!;
  const { width, height } = rect;
  const init = {
    timestamp: frame.timestamp,
    duration: frame.duration ?? undefined,
    colorSpace: {
      primaries: colorSpace.primaries ?? null,
      transfer: colorSpace.transfer ?? null,
      matrix: colorSpace.matrix ?? null,
      fullRange: colorSpace.fullRange ?? null,
    },
  };
  const pixels = new Uint8Array(frame.allocationSize({ rect }));
  const layout = await frame.copyTo(pixels, { rect });
  const rgb = /^(RGB|BGR)/.exec(frame.format ?? '');
  const copy = rgb
    ? new VideoFrame(rgbToI420(pixels, width, height, layout[0]!.stride, rgb[1] === 'BGR', frame.colorSpace), {
        ...init,
        format: 'I420',
        codedWidth: width,
        codedHeight: height,
      })
    : new VideoFrame(pixels, { ...init, format: frame.format!, codedWidth: width, codedHeight: height, layout });
  frame.close();
  return copy;
}

/** Luma weights (Kr, Kb) of the matrices a decoder may have made RGB with (ITU-R BT.709, BT.601, BT.2020). */
const LUMA_WEIGHTS: Record<string, [number, number]> = {
  bt709: [0.2126, 0.0722],
  bt470bg: [0.299, 0.114],
  smpte170m: [0.299, 0.114],
  'bt2020-ncl': [0.2627, 0.0593],
};

/** RGB(A/X) pixels back to the YUV 4:2:0 they were made from, by the inverse of the decoder's matrix and range. */
function rgbToI420(
  rgb: Uint8Array,
  width: number,
  height: number,
  stride: number,
  bgr: boolean,
  colorSpace: VideoColorSpace,
): Uint8Array {
  const [kr, kb] = LUMA_WEIGHTS[colorSpace.matrix ?? 'bt709'] ?? LUMA_WEIGHTS.bt709!;
  const kg = 1 - kr - kb;
  const [yScale, yOffset, cScale] = colorSpace.fullRange ? [255, 0, 255] : [219, 16, 224];
  const [r, b] = bgr ? [2, 0] : [0, 2];
  const cw = Math.ceil(width / 2);
  const ch = Math.ceil(height / 2);
  const out = new Uint8Array(width * height + 2 * cw * ch);
  const u = width * height;
  const v = u + cw * ch;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const at = y * stride + x * 4;
      out[y * width + x] = yOffset + (yScale * (kr * rgb[at + r]! + kg * rgb[at + 1]! + kb * rgb[at + b]!)) / 255;
    }
  }
  for (let y = 0; y < ch; y++) {
    for (let x = 0; x < cw; x++) {
      // The average of the 2×2 pixels each chroma sample covers.
      let sr = 0;
      let sg = 0;
      let sb = 0;
      let n = 0;
      for (const [dx, dy] of [
        [0, 0],
        [1, 0],
        [0, 1],
        [1, 1],
      ] as const) {
        const px = Math.min(2 * x + dx, width - 1);
        const py = Math.min(2 * y + dy, height - 1);
        const at = py * stride + px * 4;
        sr += rgb[at + r]!;
        sg += rgb[at + 1]!;
        sb += rgb[at + b]!;
        n++;
      }
      const luma = (kr * sr + kg * sg + kb * sb) / n / 255;
      out[u + y * cw + x] = 128 + (cScale * (sb / n / 255 - luma)) / (2 * (1 - kb));
      out[v + y * cw + x] = 128 + (cScale * (sr / n / 255 - luma)) / (2 * (1 - kr));
    }
  }
  return out;
}

/** The SPS and PPS NAL units of an AVCDecoderConfigurationRecord (ISO 14496-15 5.3.3.1), each with a 4-byte length. */
function parameterSetsOf(avcC: Uint8Array): Uint8Array {
  const units: Uint8Array[] = [];
  let at = 5;
  for (const countMask of [0x1f, 0xff]) {
    const count = avcC[at++]! & countMask;
    for (let i = 0; i < count; i++) {
      const length = (avcC[at]! << 8) | avcC[at + 1]!;
      units.push(avcC.subarray(at + 2, at + 2 + length));
      at += 2 + length;
    }
  }
  return lengthPrefixed(units);
}

function bytesOf(source: AllowSharedBufferSource): Uint8Array {
  return ArrayBuffer.isView(source)
    ? new Uint8Array(source.buffer, source.byteOffset, source.byteLength)
    : new Uint8Array(source);
}

function lengthPrefixed(units: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(units.reduce((n, u) => n + 4 + u.byteLength, 0));
  const view = new DataView(out.buffer);
  let at = 0;
  for (const unit of units) {
    view.setUint32(at, unit.byteLength);
    out.set(unit, at + 4);
    at += 4 + unit.byteLength;
  }
  return out;
}

/** The SPS and PPS a packet carries (4-byte lengths), if it carries an SPS. */
function inBandParameterSets(data: Uint8Array): Uint8Array | undefined {
  const units: Uint8Array[] = [];
  for (let at = 0; at + 4 < data.byteLength;) {
    const length = new DataView(data.buffer, data.byteOffset + at).getUint32(0);
    const unit = data.subarray(at + 4, at + 4 + length);
    if ((unit[0]! & 0x1f) === 7 || (unit[0]! & 0x1f) === 8) units.push(unit);
    at += 4 + length;
  }
  return units.some((u) => (u[0]! & 0x1f) === 7) ? lengthPrefixed(units) : undefined;
}

/** A keyframe with its parameter sets in front, unless it carries an SPS already. */
function withParameterSets(data: Uint8Array, parameterSets: Uint8Array): Uint8Array {
  for (let at = 0; at + 4 < data.byteLength;) {
    if ((data[at + 4]! & 0x1f) === 7) return data;
    at += 4 + new DataView(data.buffer, data.byteOffset + at).getUint32(0);
  }
  const out = new Uint8Array(parameterSets.byteLength + data.byteLength);
  out.set(parameterSets);
  out.set(data, parameterSets.byteLength);
  return out;
}

/**
 * The avc3 sample entry's record: the first keyframe's parameter sets, the profile and level their SPS names, and
 * 4-byte NAL lengths as both the encoder and this cut write them.
 */
function avcDescription(parameterSets: Uint8Array, source: Uint8Array): Uint8Array {
  const units: Uint8Array[] = [];
  for (let at = 0; at < parameterSets.byteLength;) {
    const length = new DataView(parameterSets.buffer, parameterSets.byteOffset + at).getUint32(0);
    units.push(parameterSets.subarray(at + 4, at + 4 + length));
    at += 4 + length;
  }
  const sps = units.filter((u) => (u[0]! & 0x1f) === 7);
  const pps = units.filter((u) => (u[0]! & 0x1f) === 8);
  const size = 7 + [...sps, ...pps].reduce((n, u) => n + 2 + u.byteLength, 0);
  const out = new Uint8Array(size);
  out.set([
    1,
    sps[0]?.[1] ?? source[1]!,
    sps[0]?.[2] ?? source[2]!,
    sps[0]?.[3] ?? source[3]!,
    0xff,
    0xe0 | sps.length,
  ]);
  let at = 6;
  const put = (u: Uint8Array) => {
    out.set([u.byteLength >> 8, u.byteLength & 0xff], at);
    out.set(u, at + 2);
    at += 2 + u.byteLength;
  };
  sps.forEach(put);
  out[at++] = pps.length;
  pps.forEach(put);
  return out;
}

/**
 * The audio packets of [first, end), copied. `pace` is awaited with each packet's output time before it is written
 * (encode.ts: the sound waits for the picture).
 */
export async function writeAudio(
  audio: InputAudioTrack,
  out: EncodedAudioPacketSource,
  first: number,
  end: number,
  { signal, pace }: { signal?: AbortSignal; pace?: (timestamp: number) => Promise<void> } = {},
): Promise<void> {
  // The audio packets that start within [first, end), shifted by the same amount as the video: A/V stay in sync.
  // The packet playing at `first` is left out rather than written with a negative timestamp (an edit list the
  // service's HLS copy would drop): the sound starts at most one packet (~21 ms of AAC) after the picture.
  const packets = new EncodedPacketSink(audio);
  // Null when the sound starts after the picture: then from its first packet.
  const from = (await packets.getPacket(first)) ?? (await packets.getFirstPacket());
  const config = (await audio.getDecoderConfig())!;
  let described = false;
  if (from) {
    for await (const packet of packets.packets(from)) {
      signal?.throwIfAborted();
      if (packet.timestamp >= end - SAME_INSTANT) break;
      if (packet.timestamp < first - SAME_INSTANT) continue;
      await pace?.(packet.timestamp - first);
      await out.add(
        packet.clone({ timestamp: packet.timestamp - first }),
        described ? undefined : { decoderConfig: config },
      );
      described = true;
    }
  }
  out.close();
}
