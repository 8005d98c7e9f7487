import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { S3Store } from './s3.js';

/** What a playback request is answered with on an S3 store: a playlist the API serves, or where the file is. */
export type MediaAnswer = { playlist: string } | { redirect: string };

/**
 * A video's media on an S3 store (issue 30, item 3): processing reads the source from the store and writes what it
 * delivers back (the same folder layout as under --data, so the playlists' relative URIs resolve in the store), and
 * playback is answered from the store. The keys are s3.ts's (Keys).
 */
export class S3Media {
  constructor(private readonly s3: S3Store) {}

  /** Processing: the source to a local file (ffmpeg seeks), through a temporary name. */
  async fetchSource(organizationId: string, videoId: string, file: string): Promise<void> {
    await mkdir(dirname(file), { recursive: true });
    await this.s3.download(this.s3.keys.source(organizationId, videoId), file);
  }

  /** A conversion's cut (domain/exports.ts), made on this disk: the new video's source in the store. */
  async putSource(organizationId: string, videoId: string, file: string): Promise<void> {
    await this.s3.putFile(file, this.s3.keys.source(organizationId, videoId));
  }

  /** Processing: every file of the local output folder to the video's media folder in the store. */
  async publish(organizationId: string, videoId: string, dir: string): Promise<void> {
    await this.s3.uploadFolder(dir, this.s3.keys.media(organizationId, videoId));
  }

  /**
   * Playback of `path` (index.m3u8, download.mp4, poster.jpg, main/stream.m3u8, main/seg0000.ts, …) of a ready video,
   * the name already checked by the domain (videos.mediaFile). The addresses the API gives out stay its own
   * (`/media/<id>/…`, the same on disk and on a store; with `--media-base-url` #8 names the base instead, and these
   * answer links given out before it was set), and answer:
   * - with `--media-base-url`: a redirect to `<base>/<key>` (a CDN; the playlists' relative URIs resolve there);
   * - the master playlist: its text as written (its relative URIs lead back to the API's rendition playlists);
   * - a rendition playlist: each segment's URI its presigned GET (s3.ts, signedPlaylist), the bytes from the store;
   * - anything else (the MP4, the poster, a segment asked by name): a redirect to its presigned GET.
   */
  async answer(organizationId: string, videoId: string, path: string): Promise<MediaAnswer> {
    const root = this.s3.keys.media(organizationId, videoId);
    const key = root + path;
    if (this.s3.mediaBaseUrl || !path.endsWith('.m3u8')) return { redirect: await this.s3.getUrl(key) };
    if (path === 'index.m3u8') return { playlist: await this.s3.readText(key, root) };
    return { playlist: await this.s3.signedPlaylist(key, root) };
  }
}
