import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { playlistSegments } from '../live/playlist.js';
import type { S3Store } from './s3.js';

/** How often a part's folder is looked at for segments its recorder closed (a segment is 2 s: live/recorder.ts). */
const EVERY_MS = 1_000;

/** One publish's segments on their way to the store; `finish` ships what the recorder's end closed, then stops. */
export interface Shipping {
  finish(): Promise<void>;
}

/**
 * A live recording's segments on an S3 store (issue 30, item 3): the ingest node's recorder writes HLS under --data as
 * today, and each segment goes to the store as soon as its recorder's playlist lists it (ffmpeg lists a segment once
 * it is closed), then the part's playlist as it stands, so the store's playlist never names a segment the store
 * lacks. Keys: `orgs/<organization>/recordings/<recording>/part<seq>/seg00000.ts`, `…/stream.m3u8` (s3.ts, Keys).
 */
export class S3Recordings {
  constructor(private readonly s3: S3Store) {}

  follow(recordingId: string, organizationId: string, seq: number, dir: string): Shipping {
    const prefix = `${this.s3.keys.recording(organizationId, recordingId)}part${seq}/`;
    const shipped = new Set<string>();
    let playlistSent = '';
    let pass: Promise<void> = Promise.resolve();
    const ship = async () => {
      const text = await readFile(join(dir, 'stream.m3u8'), 'utf8').catch(() => '');
      if (text === playlistSent) return;
      for (const { file } of playlistSegments(text)) {
        if (shipped.has(file)) continue;
        await this.s3.putFile(join(dir, file), prefix + file);
        shipped.add(file);
      }
      await this.s3.putFile(join(dir, 'stream.m3u8'), `${prefix}stream.m3u8`, text);
      playlistSent = text;
    };
    // One pass at a time; a pass the store refused is tried again at the next tick.
    const next = () =>
      (pass = pass.then(ship).catch((err: unknown) => console.error(`recording ${recordingId}: ${String(err)}`)));
    const timer = setInterval(next, EVERY_MS);
    return {
      async finish() {
        clearInterval(timer);
        await next();
      },
    };
  }
}
