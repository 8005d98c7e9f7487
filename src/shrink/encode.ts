import {
  EncodedAudioPacketSource,
  EncodedPacket,
  EncodedPacketSink,
  EncodedVideoPacketSource,
  Mp4OutputFormat,
  Output,
  VideoSampleSink,
  type Input,
  type Target,
} from 'mediabunny';
import { SAME_INSTANT, writeAudio } from './cut.js';
import type { Trim } from './protocol.js';

/**
 * The re-encode (issue 31): every frame the browser decodes goes as it is to a WebCodecs encoder configured at the
 * output's size, which scales it (WebCodecs: an encoder scales a frame whose visible size is not the configured one);
 * the sound is copied. Why not Mediabunny's `Conversion`: it resizes each frame by drawing it on a canvas, a round
 * trip through RGB that took 3 of every 4 milliseconds here (4K H.264 to 1080p: 17 frames a second through it, 50
 * straight into the encoder, headless Chromium on 2 cores; Firefox ESR 4.5 against 9.4).
 *
 * The rotation is kept as the source has it, in the track's metadata (the service turns it into pixels when it
 * makes the stream). A trim is part of the pass: the frame shown at its start is the output's first, at time 0.
 */

export interface EncodePlan {
  trim?: Trim;
  /** The encoder's frame, before the rotation: the source's frame scaled. */
  width: number;
  height: number;
  config: VideoEncoderConfig;
  /** Seconds between keyframes. */
  keyFrameSeconds: number;
}

export interface EncodeOptions {
  /** Stops after this many seconds of output (the probe), leaving the output unfinished. */
  until?: number;
  /** 0..1 of the part kept, as it is encoded. */
  onProgress?: (fraction: number) => void;
}

/**
 * An encoder configuration for `width`×`height` at `frameRate` and `bitrate` the browser has: H.264 (High, then Main,
 * then Constrained Baseline) at the level the size and rate need, else VP9. Undefined when it has neither.
 */
export async function encoderConfigFor(
  width: number,
  height: number,
  frameRate: number,
  bitrate: number,
): Promise<VideoEncoderConfig | undefined> {
  const level = avcLevel(width, height, frameRate);
  const codecs = ['6400', '4d00', '42e0'].map((profile) => `avc1.${profile}${level}`).concat('vp09.00.40.08');
  for (const codec of codecs) {
    const config: VideoEncoderConfig = {
      codec,
      width,
      height,
      bitrate,
      framerate: frameRate,
      latencyMode: 'quality',
      ...(codec.startsWith('avc') ? { avc: { format: 'avc' as const } } : {}),
    };
    // Some browsers throw instead of answering "not supported" (mediabunny#456).
    if ((await VideoEncoder.isConfigSupported(config).catch(() => undefined))?.supported) return config;
  }
  return undefined;
}

/** H.264 levels by the largest frame (macroblocks) and macroblocks a second they allow (ITU-T H.264, table A-1). */
const AVC_LEVELS: [hex: string, frame: number, perSecond: number][] = [
  ['1f', 3600, 108_000],
  ['28', 8192, 245_760],
  ['2a', 8704, 522_240],
  ['32', 22_080, 589_824],
  ['33', 36_864, 983_040],
  ['34', 36_864, 2_073_600],
];

function avcLevel(width: number, height: number, frameRate: number): string {
  const blocks = Math.ceil(width / 16) * Math.ceil(height / 16);
  const fits = AVC_LEVELS.find(([, frame, perSecond]) => blocks <= frame && blocks * frameRate <= perSecond);
  return (fits ?? AVC_LEVELS.at(-1)!)[0];
}

/**
 * Writes `input`'s primary video, re-encoded by `plan`, and its primary audio copied, to `target` as a fragmented MP4
 * (a fragment a second or so): its bytes stream out forward only, so the first of them can be sent at once, where a
 * plain MP4 patches its first bytes at its end. Returns the frames written.
 */
export async function encodeTo(input: Input, target: Target, plan: EncodePlan, options: EncodeOptions = {}) {
  const video = (await input.getPrimaryVideoTrack())!;
  const audio = await input.getPrimaryAudioTrack();
  const packets = new EncodedPacketSink(video);
  // The frame shown at the trim's start is the output's time 0 (as cut.ts); untrimmed, the source's times are kept.
  const first = plan.trim ? ((await packets.getPacket(plan.trim.start, { metadataOnly: true }))?.timestamp ?? 0) : 0;
  const end = Math.min(plan.trim?.end ?? Infinity, first + (options.until ?? Infinity));
  const total = Math.min(end, await input.computeDuration()) - first;

  const output = new Output({ format: new Mp4OutputFormat({ fastStart: 'fragmented' }), target });
  const videoOut = new EncodedVideoPacketSource(plan.config.codec.startsWith('avc') ? 'avc' : 'vp9');
  output.addVideoTrack(videoOut, { rotation: video.rotation });
  // planFor (shrink.worker.ts) sends a file whose sound an MP4 cannot hold as it is.
  const audioOut = audio?.codec ? new EncodedAudioPacketSource(audio.codec) : undefined;
  if (audioOut) output.addAudioTrack(audioOut);
  await output.start();

  // The sound is written only as far as the picture, so the muxer never holds more than a second of it.
  let written = 0;
  let caughtUp: (() => void) | undefined;
  const pictureAt = async (timestamp: number) => {
    while (timestamp > written + 1) await new Promise<void>((resolve) => (caughtUp = resolve));
  };
  const wrote = (timestamp: number) => {
    written = timestamp;
    caughtUp?.();
  };
  let frames = 0;
  try {
    await Promise.all([
      writeVideo(),
      audio && audioOut ? writeAudio(audio, audioOut, first, end, { pace: pictureAt }) : undefined,
    ]);
    if (options.until !== undefined) await output.cancel();
    else await output.finalize();
    return frames;
  } catch (err) {
    await output.cancel();
    throw err;
  }

  async function writeVideo() {
    let failed: unknown;
    const made: [EncodedPacket, EncodedVideoChunkMetadata | undefined][] = [];
    // The exact seconds of each frame sent, by the microseconds the encoder's chunk keeps.
    const sent = new Map<number, [timestamp: number, duration: number]>();
    const encoder = new VideoEncoder({
      output: (chunk, meta) => {
        const [timestamp, duration] = sent.get(chunk.timestamp) ?? [chunk.timestamp / 1e6, (chunk.duration ?? 0) / 1e6];
        sent.delete(chunk.timestamp);
        made.push([EncodedPacket.fromEncodedChunk(chunk).clone({ timestamp, duration }), meta]);
      },
      error: (err) => (failed = err),
    });
    const drain = async () => {
      if (failed) throw failed;
      for (const [packet, meta] of made.splice(0)) {
        // The track is described once, by the first chunk's decoder configuration.
        await videoOut.add(packet, frames === 0 ? meta : undefined);
        wrote(packet.timestamp);
        frames++;
        options.onProgress?.(Math.min(1, (packet.timestamp + packet.duration) / total));
      }
    };
    encoder.configure(plan.config);
    let lastKey = -Infinity;
    try {
      for await (const sample of new VideoSampleSink(video).samples(first, end - SAME_INSTANT)) {
        // Decoding starts at the keyframe before the trim: the frames before it are only the way there.
        if (sample.timestamp < first - SAME_INSTANT) {
          sample.close();
          continue;
        }
        const timestamp = sample.timestamp - first;
        const decoded = sample.toVideoFrame();
        const frame = new VideoFrame(decoded, { timestamp: Math.round(timestamp * 1e6) });
        decoded.close();
        sent.set(frame.timestamp, [timestamp, sample.duration]);
        sample.close();
        const keyFrame = timestamp - lastKey >= plan.keyFrameSeconds - SAME_INSTANT;
        if (keyFrame) lastKey = timestamp;
        encoder.encode(frame, { keyFrame });
        frame.close();
        // A few frames in the encoder at most: they are the source's size.
        while (encoder.encodeQueueSize > 2)
          await new Promise((resolve) => encoder.addEventListener('dequeue', resolve, { once: true }));
        await drain();
      }
      await encoder.flush();
      await drain();
    } finally {
      if (encoder.state !== 'closed') encoder.close();
      videoOut.close();
      wrote(Infinity);
    }
  }
}
