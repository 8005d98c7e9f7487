import type Uppy from '@uppy/core';
import type { Body, UppyFile } from '@uppy/core';
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { VideoServiceClient } from '../api/client.js';
import { isAbort, VideoServiceError } from '../api/errors.js';
import { wait } from '../api/retry.js';
import { GIB, MAX_CHUNKS, MAX_PART_BYTES } from '../api/limits.js';
import type { Emit, UploadFileInfo } from '../events.js';
import type { Strings } from '../locale/en.js';
import { EN_UPPY, type LocalizeController } from '../locale/localize.js';
import {
  DEFAULT_MAX_PARALLEL_UPLOADS,
  DEFAULT_SOURCES,
  hasMediaLimits,
  NO_MEDIA_LIMITS,
  type MediaLimits,
  type UploaderOptions,
} from '../options.js';
import type { VideoMeta } from './aws-s3-options.js';
import { enableDashboard, hostDashboard, setLanguage, setTheme } from './dashboard-host.js';
import { setSources } from './sources.js';
import type { ChunkLedger } from './ledger.js';
import { planUpload } from './plan.js';
import { fileInfo } from './file-info.js';

type File = UppyFile<VideoMeta, Body>;

export interface UppyControllerDeps {
  client: () => VideoServiceClient | null;
  emit: Emit;
  /** The element's sentences in the current language (they change at run time). */
  strings: () => Strings;
  /** The element's language tag, as its sentences follow it. */
  lang: () => string;
  /** A file's bytes are all in the service: the element starts its preview. */
  onUploaded: (videoId: string, name: string) => void;
}

/**
 * Owns the Uppy instance for the element's life: created when the element is connected and its target rendered,
 * destroyed when it is disconnected. Its jobs are elsewhere: the Dashboard host (dashboard-host.ts), the plugin
 * wiring (plugins.ts, aws-s3-options.ts) and the event translation (uppy-events.ts); here are what they share:
 * the options, the ledger, #1 once per file, each file's plan and fingerprint, and the ledger's reconciliation.
 */
export class UppyController implements ReactiveController {
  uppy: Uppy<VideoMeta, Body> | undefined;
  private target: HTMLElement | undefined;
  private options: UploaderOptions | undefined;
  private autoProceed = false;
  private language: Pick<LocalizeController, 'uppy' | 'strings' | 'dir'> | undefined;
  private listeners = new AbortController();
  /** The chunk ledger (ledger.ts), made with the plugins: no file comes before they are in. */
  private ledger: ChunkLedger | undefined;
  private readonly creating = new Map<string, Promise<string>>();
  /** Files the person removed or cancelled: only their sessions are aborted (#7). */
  private readonly cancelled = new Set<string>();
  /** Services whose leftover ledger entries were dealt with (once per page). */
  private readonly reconciled = new Set<string>();
  /** Links given so far: each is a "file" of its own in the events. */
  private links = 0;

  constructor(
    private readonly host: ReactiveControllerHost & HTMLElement,
    private readonly deps: UppyControllerDeps,
  ) {
    host.addController(this);
  }

  /** Mounts the Dashboard into `target` (an element of the host's shadow root). */
  mount(target: HTMLElement): void {
    this.target = target;
    if (this.host.isConnected && !this.uppy) this.create();
  }

  /** New options apply to the next file added (each file keeps the plan it was added with). */
  configure(options: UploaderOptions | undefined, autoProceed: boolean): void {
    this.options = options;
    this.autoProceed = autoProceed;
    if (!this.uppy) return;
    this.uppy.setOptions({ autoProceed, restrictions: this.restrictions() });
    if (options) setTheme(this.uppy, options.theme);
    if (options) this.plugins?.applyParallelUploads(this.uppy);
    void this.setSources();
    void this.reconcile();
  }

  /** The language changed (or its overrides): the Dashboard follows at once. */
  localize(language: Pick<LocalizeController, 'uppy' | 'strings' | 'dir'>): void {
    this.language = language;
    if (this.uppy) setLanguage(this.uppy, language);
  }

  hostConnected(): void {
    if (this.target && !this.uppy) this.create();
  }

  hostDisconnected(): void {
    this.restorable = false;
    this.listeners.abort();
    this.uppy?.destroy();
    this.uppy = undefined;
  }

  private restrictions() {
    return {
      maxFileSize: this.options?.maxFileSize ?? null,
      maxNumberOfFiles: this.options?.maxFiles ?? null,
      allowedFileTypes: this.options?.accept ?? null,
    };
  }

  private create(): void {
    this.listeners = new AbortController();
    const uppy = hostDashboard({
      hostId: this.host.id,
      target: this.target!,
      strings: this.deps.strings,
      uppyLocale: this.language?.uppy ?? EN_UPPY,
      direction: this.language?.dir ?? 'ltr',
      autoProceed: this.autoProceed,
      restrictions: this.restrictions(),
      theme: this.options?.theme ?? 'light',
      onBeforeFileAdded: (file) => this.planFile(file),
      signal: this.listeners.signal,
    });
    uppy.addPreProcessor(async (ids) => {
      // Only a file the ledger may hold an interrupted upload of is hashed before its upload; any other's #1 goes
      // out at once (createMultipartUpload hashes it meanwhile). resume.ts and fingerprint.ts load when first needed.
      const { ledger } = this;
      if (!ledger) return;
      const baseUrl = this.client().baseUrl;
      const candidates = ids.filter((id) => ledger.mayHold(uppy.getFile(id)?.name ?? '', baseUrl));
      if (!candidates.length) return;
      const { adoptInterruptedUploads } = await import('./resume.js');
      await adoptInterruptedUploads(uppy, candidates, ledger, baseUrl, (f) => this.fingerprintOf(f));
    });
    this.readBeforeAdding(uppy);
    this.decorateCards(uppy);
    this.uppy = uppy;
    void this.setSources();
    void this.loadPlugins(uppy);
  }

  /** plugins.ts, with the uploader's wiring (aws-s3-options.ts, put.ts): loaded once the Dashboard is drawn. */
  private plugins: typeof import('./plugins.js') | undefined;

  /** The uploader and Golden Retriever; then the Dashboard takes files, and the ledger is reconciled. */
  private async loadPlugins(uppy: Uppy<VideoMeta, Body>): Promise<void> {
    try {
      this.plugins ??= await import('./plugins.js');
      if (this.uppy !== uppy) return;
      const ledger = (this.ledger ??= new this.plugins.ChunkLedger());
      // Before @uppy/aws-s3, so that the events reach the ledger before its handlers abort a session.
      this.plugins.translateEvents(uppy, { ...this.deps, ledger, cancelled: this.cancelled });
      await this.plugins.installPlugins(
        uppy,
        {
          client: () => this.client(),
          getFile: (id) => uppy.getFile(id),
          ensureVideo: (file, signal) => this.ensureVideo(file, signal),
          ledger,
          fingerprint: (file) => this.fingerprintOf(file),
          setMeta: (id, meta) => uppy.setFileMeta(id, meta),
          cancelledByUser: (id) => this.cancelled.has(id),
          notify: (message) => uppy.info(message, 'warning', 8000),
          strings: this.deps.strings,
          verifyChunks: () => this.options?.verifyChunks ?? false,
          parallelUploads: () => this.options?.parallelUploads ?? null,
          maxParallelUploads: () => this.options?.maxParallelUploads ?? DEFAULT_MAX_PARALLEL_UPLOADS,
          emit: this.deps.emit,
          shrinkTo: () => this.options?.shrinkTo ?? null,
          trim: () => this.options?.trim ?? false,
          media: () => this.options?.media ?? NO_MEDIA_LIMITS,
          chunkSize: () => this.options?.chunkSize ?? null,
          lang: this.deps.lang,
          adoptCss: this.adoptCss,
        },
        () => this.uppy === uppy,
      );
    } finally {
      if (this.uppy === uppy) {
        enableDashboard(uppy);
        this.restorable = true;
        await this.reconcile();
      }
    }
  }

  /** The Dashboard's sources, as `sources` says (sources.ts); the Link source's URLs are imported here. */
  private async setSources(): Promise<void> {
    if (!this.uppy) return;
    await setSources(this.uppy, this.options?.sources ?? DEFAULT_SOURCES, {
      strings: this.deps.strings,
      onLink: (url) => void this.importLink(url),
      adoptCss: this.adoptCss,
    });
  }

  /** Styles a lazily loaded part brings (a source's, the shrinking panel's), added to the element's shadow root. */
  private readonly adoptCss = (css: string) => {
    const root = this.host.shadowRoot;
    if (!root) return;
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(css);
    root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
  };

  /** Set once Golden Retriever has had its chance to recover files: reconcile waits for it. */
  private restorable = false;

  /** The file's fingerprint, computed once and kept in its meta. */
  private async fingerprintOf(file: File): Promise<string> {
    const current = this.uppy?.getFile(file.id) ?? file;
    if (current.meta.fingerprint) return current.meta.fingerprint;
    const { fingerprint } = await import('./fingerprint.js');
    const print = await fingerprint(
      current.data as Blob,
      current.name ?? '',
      (current.data as globalThis.File).lastModified,
    );
    this.uppy?.setFileMeta(file.id, { fingerprint: print });
    return print;
  }

  /** Once per service and page, after Golden Retriever had its chance (see resume.ts). */
  private async reconcile(): Promise<void> {
    const client = this.deps.client();
    const { uppy, ledger } = this;
    if (!uppy || !ledger || !this.restorable || !client || this.reconciled.has(client.baseUrl)) return;
    this.reconciled.add(client.baseUrl);
    const { reconcileLedger } = await import('./resume.js');
    await reconcileLedger(uppy, ledger, client, this.deps.strings());
  }

  private client(): VideoServiceClient {
    const client = this.deps.client();
    if (!client)
      throw new VideoServiceError('The uploader is not configured: see the config-error event.', 0, 'config', false);
    return client;
  }

  /** Fixes how a file will be sent when it is added, and refuses what cannot be sent. */
  private planFile(file: File): File | boolean {
    const t = this.deps.strings();
    const uppy = this.uppy!;
    // Uppy checks for duplicates only when this hook returns nothing, and it returns the plan.
    if (uppy.checkIfFileAlreadyExists(file.id)) {
      uppy.info(uppy.i18n('noDuplicates', { fileName: file.name ?? '' }), 'error', 5000);
      return false;
    }
    if (!file.size) {
      uppy.info(t.emptyFile(file.name ?? ''), 'error', 6000);
      return false;
    }
    if (!this.options) return file;
    try {
      const { multipartThreshold, chunkSize, parallelUploads, maxParallelUploads } = this.options;
      // Adaptive, chunks are planned for the most a file may reach, so that a level takes hold within seconds.
      const parallel = parallelUploads ?? maxParallelUploads;
      const uploadPlan = planUpload(file.size, multipartThreshold, chunkSize, parallel);
      return { ...file, meta: { ...file.meta, uploadPlan } };
    } catch {
      // planUpload's one refusal: a file that would need more than 10,000 chunks under 5 GB.
      uppy.info(t.tooManyChunks(file.name ?? '', MAX_CHUNKS, MAX_PART_BYTES / GIB), 'error', 8000);
      return false;
    }
  }

  /**
   * A URL from the Link source: #1, then the service imports it (POST /videos/{id}/import). The same events as a
   * file's follow: video-created, upload-progress (the service's download), upload-success once the file is in,
   * then the preview and video-ready (or video-failed) as for any upload.
   */
  private async importLink(url: string): Promise<void> {
    const name = decodeURIComponent(new URL(url).pathname.split('/').pop() || new URL(url).hostname);
    const file: UploadFileInfo = { id: `link-${++this.links}`, name, size: 0, type: '' };
    const t = this.deps.strings();
    // The element removed, its import is no longer followed (the service goes on with it).
    const { signal } = this.listeners;
    try {
      const client = this.client();
      const video = await client.createVideo(name, signal);
      this.deps.emit('video-created', { videoId: video._id, file });
      await client.importVideo(video._id, url, signal);
      const read = () => client.getVideo(video._id, signal);
      for (let details = await read(); details.import; details = await read()) {
        this.deps.emit('upload-progress', {
          file,
          bytesSent: details.import.bytes,
          bytesTotal: details.import.total ?? 0,
        });
        await wait(500, signal);
      }
      this.deps.emit('upload-success', { file, videoId: video._id });
      this.deps.onUploaded(video._id, name);
    } catch (err) {
      if (isAbort(err) || signal.aborted) return;
      const refused = err instanceof VideoServiceError && err.code === 'invalid_field';
      const { describeError } = await import('../locale/errors.js');
      this.uppy?.info(refused ? t.linkRefused(url) : describeError(err, t, name), 'error', 8000);
      this.deps.emit('upload-error', {
        file,
        error: err as Error,
        retryable: !(err instanceof VideoServiceError) || err.retryable,
      });
    }
  }

  /**
   * Media restrictions (max-duration, min-resolution …) need each file read before it is added, which Uppy 5.x's
   * onBeforeFileAdded, being synchronous, cannot wait for. So the instance's addFiles (which the Dashboard calls
   * for picked, dropped and pasted files) and addFile (which Webcam and ScreenCapture call with a recording) are
   * wrapped: with a media limit set, each file is read first, and only those that pass are added (the others are
   * said why); with none, they are Uppy's own, unchanged. What they would throw is logged, as their callers do.
   */
  private readBeforeAdding(uppy: Uppy<VideoMeta, Body>): void {
    const [addFiles, addFile] = [uppy.addFiles.bind(uppy), uppy.addFile.bind(uppy)];
    type Descriptor = Parameters<typeof addFiles>[0][number];
    const limits = () => (this.options && hasMediaLimits(this.options.media) ? this.options.media : undefined);
    const passing = async (descriptors: Descriptor[], media: MediaLimits) => {
      // Loaded with the first file read, as MediaInfo is after it (media-check.ts): most pages set no such limit.
      const { factsSent, readMedia, refusal } = await import('./media-check.js');
      const changes = { trim: this.options?.trim ?? false, shrinkTo: this.options?.shrinkTo ?? null };
      const checked = await Promise.all(
        descriptors.map(async (d) => {
          if (!(d.data instanceof Blob)) return d;
          const facts = factsSent(await readMedia(d.data), media, changes);
          const why = refusal(d.name ?? '', facts, media, this.deps.strings());
          if (why) uppy.info(why, 'error', 8000);
          return why ? undefined : d;
        }),
      );
      return checked.filter((d) => d !== undefined && this.uppy === uppy) as Descriptor[];
    };
    const later = (descriptors: Descriptor[], media: MediaLimits, add: (d: Descriptor[]) => unknown) =>
      void passing(descriptors, media)
        .then((passed) => passed.length && add(passed))
        .catch((err: unknown) => uppy.log(err as Error, 'error'));
    uppy.addFiles = (descriptors) => {
      const media = limits();
      if (!media) return addFiles(descriptors);
      later(descriptors, media, addFiles);
    };
    uppy.addFile = (descriptor) => {
      const media = limits();
      if (!media) return addFile(descriptor);
      const d =
        descriptor instanceof File ? { name: descriptor.name, type: descriptor.type, data: descriptor } : descriptor;
      later([d], media, ([passed]) => addFile(passed!));
      return ''; // its id is not known yet: the recorders do not use it
    };
  }

  /** A frame and the right icon on each file's card (card.ts, loaded with the first file added). */
  private decorateCards(uppy: Uppy<VideoMeta, Body>): void {
    let decorator: Promise<(file: File) => void> | undefined;
    const signal = this.listeners.signal;
    uppy.on('file-added', (file) => {
      decorator ??= import('./card.js').then(({ cardDecorator }) => cardDecorator(uppy, signal));
      void decorator.then((decorate) => decorate(file));
    });
  }

  /** #1 once per file: the `_id` is kept in the file's meta, and concurrent callers share the call. */
  private ensureVideo(file: File, signal?: AbortSignal): Promise<string> {
    const existing = this.uppy?.getFile(file.id)?.meta.videoId;
    if (existing) return Promise.resolve(existing);
    let pending = this.creating.get(file.id);
    if (!pending) {
      pending = this.client()
        .createVideo(file.name, signal)
        .then((video) => {
          this.uppy?.setFileMeta(file.id, { videoId: video._id });
          this.deps.emit('video-created', { videoId: video._id, file: fileInfo(file) });
          return video._id;
        })
        .finally(() => this.creating.delete(file.id));
      this.creating.set(file.id, pending);
    }
    return pending;
  }
}
