import { spawn } from 'node:child_process';
import { testPattern } from './media.js';

/**
 * A real RTMP publisher: ffmpeg pushing a test pattern and a tone in real time (`-re`), 720p at 2 Mbit/s,
 * H.264 + AAC with a keyframe every 2 s, as OBS sends by default. `codecs` swaps in others (FLV's own
 * Sorenson video and MP3, say) to make the service encode. `realTime: false` sends it as fast as it encodes (a
 * recording to test against, made in a second or two). Resolves with ffmpeg's exit code.
 */
export function push(
  url: string,
  seconds: number,
  codecs = [
    '-c:v',
    'libx264',
    '-preset',
    'veryfast',
    '-g',
    '60',
    '-b:v',
    '2M',
    '-pix_fmt',
    'yuv420p',
    '-c:a',
    'aac',
    '-b:a',
    '128k',
  ],
  realTime = true,
): Promise<number | null> {
  const child = spawn(
    'ffmpeg',
    [
      '-hide_banner',
      '-nostdin',
      '-v',
      'error',
      ...(realTime ? ['-re'] : []),
      ...testPattern('1280x720', 30, 'frequency=440:sample_rate=48000'),
      '-t',
      String(seconds),
      ...codecs,
      '-f',
      'flv',
      url,
    ],
    { stdio: 'ignore' },
  );
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}
