import type AwsS3 from '@uppy/aws-s3';
import Uppy, { type Body, type UppyFile } from '@uppy/core';
import Dashboard from '@uppy/dashboard';
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { VideoServiceClient } from '../api/client.js';
import { isAbort, VideoServiceError } from '../api/errors.js';
import type { Emit, UploadFileInfo } from '../events.js';
import type { Locale } from '../locale/en.js';
import type { UploaderOptions } from '../options.js';
import { awsS3Options, type VideoMeta } from './aws-s3-options.js';
import { trapFocusInShadow } from './focus.js';
import { fingerprint } from './fingerprint.js';
import { ChunkLedger } from './ledger.js';
import { adoptInterruptedUploads, reconcileLedger } from './resume.js';
import { planUpload } from './plan.js';

type File = UppyFile<VideoMeta, Body>;

export interface UppyControllerDeps {
  client: () => VideoServiceClient | null;
  emit: Emit;
  locale: Locale;
  /** A file's bytes are all in the service: the element starts its preview. */
  onUploaded: (videoId: string, name: string) => void;
}

/** Golden Retriever keeps files up to this size in IndexedDB across a reload; bigger ones are asked for again. */
const KEEP_FILES_UP_TO = 64 * 1024 * 1024;

const info = (file: File): UploadFileInfo => ({
  id: file.id,
  name: file.name ?? '',
  size: file.size ?? 0,
  type: file.type,
  data: file.data instanceof Blob ? file.data : undefined,
});

/**
 * Owns the Uppy instance: the Dashboard inline in the host's shadow root, and @uppy/aws-s3 wired to
 * the service. Created when the element is connected and its target rendered, destroyed when it is
 * disconnected. Uppy's events become the element's events.
 */
export class UppyController implements ReactiveController {
  uppy: Uppy<VideoMeta, Body> | undefined;
  private target: HTMLElement | undefined;
  private options: UploaderOptions | undefined;
  private autoProceed = false;
  private listeners = new AbortController();
  private readonly ledger = new ChunkLedger();
  private readonly creating = new Map<string, Promise<string>>();
  /** Files the person removed or cancelled: only their sessions are aborted (#7). */
  private readonly cancelled = new Set<string>();
  /** Services whose leftover ledger entries were dealt with (once per page). */
  private readonly reconciled = new Set<string>();

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
    const s3 = this.uppy.getPlugin<AwsS3<VideoMeta, Body>>('AwsS3Multipart');
    if (s3 && options) (s3 as unknown as { requests: { limit: number } }).requests.limit = options.parallelUploads;
    void this.reconcile();
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
    const { locale, emit } = this.deps;
    this.listeners = new AbortController();
    const uppy = new Uppy<VideoMeta, Body>({
      // Stable, so that Golden Retriever finds this element's files again after a reload.
      id: `video-uploader${this.host.id ? `:${this.host.id}` : ''}`,
      autoProceed: this.autoProceed,
      restrictions: this.restrictions(),
      locale: { strings: locale.uppy, pluralize: (n: number) => (n === 1 ? 0 : 1) },
      onBeforeFileAdded: (file) => this.planFile(file),
    });
    uppy.use(Dashboard, {
      inline: true,
      target: this.target!,
      width: '100%',
      height: 380,
      proudlyDisplayPoweredByUppy: false,
      note: locale.dashboardNote,
      theme: 'light',
      // Until the uploader is installed and Golden Retriever has restored (loadPlugins).
      disabled: true,
    });
    uppy.addPreProcessor((ids) =>
      adoptInterruptedUploads(uppy, ids, this.ledger, this.client().baseUrl, (f) => this.fingerprintOf(f)),
    );
    // While an upload runs, leaving the page asks first.
    window.addEventListener(
      'beforeunload',
      (event) => {
        if (!uppy.getFiles().some((f) => f.progress.uploadStarted && !f.progress.uploadComplete && !f.error)) return;
        event.preventDefault();
        event.returnValue = locale.leaveWhileUploading;
      },
      { signal: this.listeners.signal },
    );
    // Registered before any upload starts, so they run before @uppy/aws-s3's own handlers abort the session.
    uppy.on('file-removed', (file) => this.cancelled.add(file.id));
    uppy.on('cancel-all', () => uppy.getFiles().forEach((f) => this.cancelled.add(f.id)));
    // A single-link upload cannot resume (spec): say so when it is paused, alone or with the rest.
    const warnIfSingle = (files: File[]) => {
      for (const f of files) {
        if (f.progress.uploadStarted && !f.progress.uploadComplete && f.meta.uploadPlan?.method === 'single') {
          uppy.info(locale.singleRestarts(f.name ?? ''), 'warning', 6000);
        }
      }
    };
    uppy.on('upload-pause', (file, isPaused) => file && isPaused && warnIfSingle([uppy.getFile(file.id)]));
    uppy.on('pause-all', () => warnIfSingle(uppy.getFiles()));
    uppy.on('upload-success', (file) => {
      const key = file && uppy.getFile(file.id)?.meta.session?.key;
      if (key) this.ledger.forget(key);
    });
    uppy.on('s3-multipart:part-uploaded', (file, part) => {
      const sessionKey = (uppy.getFile(file.id) as File & { s3Multipart?: { uploadId?: string } }).s3Multipart
        ?.uploadId;
      if (sessionKey) this.ledger.record(sessionKey, part.PartNumber, part.ETag);
    });
    uppy.on('upload-progress', (file, progress) => {
      if (file)
        emit('upload-progress', {
          file: info(file),
          bytesSent: progress.bytesUploaded,
          bytesTotal: progress.bytesTotal ?? file.size ?? 0,
        });
    });
    uppy.on('upload-success', (file) => {
      const videoId = file && uppy.getFile(file.id)?.meta.videoId;
      if (!file || !videoId) return;
      emit('upload-success', { file: info(file), videoId });
      this.deps.onUploaded(videoId, file.name ?? '');
    });
    uppy.on('upload-error', (file, error) => {
      if (!file || isAbort(error)) return;
      emit('upload-error', {
        file: info(file),
        error,
        retryable: !(error instanceof VideoServiceError) || error.retryable,
      });
    });
    trapFocusInShadow(
      this.target!,
      () => uppy.getPlugin<Dashboard<VideoMeta, Body>>('Dashboard')?.getPluginState().activeOverlayType ?? null,
      this.listeners.signal,
    );
    this.uppy = uppy;
    void this.loadPlugins(uppy);
  }

  /**
   * @uppy/aws-s3 and Golden Retriever, loaded with import() right after the Dashboard appears: they are
   * needed to upload and to keep files, not to show anything (measured in bench/widget.bench.ts). The
   * Dashboard takes no file until both are installed. When Golden Retriever finds saved state, it later
   * replaces Uppy's files and uploads wholesale, dropping any file added meanwhile; so the Dashboard also
   * waits for that restore to land (at once when nothing was saved, after 5 s at worst). Then the ledger
   * is reconciled, which needs what Golden Retriever recovered.
   */
  private async loadPlugins(uppy: Uppy<VideoMeta, Body>): Promise<void> {
    const dashboard = () => uppy.getPlugin<Dashboard<VideoMeta, Body>>('Dashboard');
    try {
      const [{ default: AwsS3 }, { default: GoldenRetriever }] = await Promise.all([
        import('@uppy/aws-s3'),
        import('@uppy/golden-retriever'),
      ]);
      if (this.uppy !== uppy) return;
      uppy.use(
        AwsS3,
        awsS3Options(
          {
            client: () => this.client(),
            getFile: (id) => uppy.getFile(id),
            ensureVideo: (file, signal) => this.ensureVideo(file, signal),
            ledger: this.ledger,
            fingerprint: (file) => this.fingerprintOf(file),
            setMeta: (id, meta) => uppy.setFileMeta(id, meta),
            cancelledByUser: (id) => this.cancelled.has(id),
            notify: (message) => uppy.info(message, 'warning', 8000),
            locale: this.deps.locale,
            verifyChunks: () => this.options?.verifyChunks ?? false,
          },
          this.options?.parallelUploads ?? 4,
        ),
      );
      const saved = (() => {
        try {
          return localStorage.getItem(`uppyState:${uppy.getID()}`) !== null;
        } catch {
          return false;
        }
      })();
      const restored = new Promise<void>((resolve) => {
        if (!saved) return resolve();
        const landed = (_prev: unknown, _next: unknown, patch?: Record<string, unknown>) => {
          if (patch && 'recoveredState' in patch) done();
        };
        const done = () => (uppy.off('state-update', landed), clearTimeout(timer), resolve());
        const timer = setTimeout(done, 5000);
        uppy.on('state-update', landed);
      });
      // The size limits reach its IndexedDBStore (golden-retriever/src/index.ts spreads `indexedDB` into it),
      // though GoldenRetrieverOptions does not declare them.
      const keep = { maxFileSize: KEEP_FILES_UP_TO, maxTotalSize: 4 * KEEP_FILES_UP_TO } as { name?: string };
      uppy.use(GoldenRetriever, { serviceWorker: false, indexedDB: keep });
      await restored;
    } finally {
      if (this.uppy === uppy) {
        dashboard()?.setOptions({ disabled: false });
        this.restorable = true;
        await this.reconcile();
      }
    }
  }

  /** Set once Golden Retriever has had its chance to recover files: reconcile waits for it. */
  private restorable = false;

  /** The file's fingerprint, computed once and kept in its meta. */
  private async fingerprintOf(file: File): Promise<string> {
    const current = this.uppy?.getFile(file.id) ?? file;
    if (current.meta.fingerprint) return current.meta.fingerprint;
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
    if (!this.uppy || !this.restorable || !client || this.reconciled.has(client.baseUrl)) return;
    this.reconciled.add(client.baseUrl);
    await reconcileLedger(this.uppy, this.ledger, client, this.deps.locale);
  }

  private client(): VideoServiceClient {
    const client = this.deps.client();
    if (!client)
      throw new VideoServiceError('The uploader is not configured (see the message above).', 0, 'config', false);
    return client;
  }

  /** Fixes how a file will be sent when it is added, and refuses what cannot be sent. */
  private planFile(file: File): File | boolean {
    const { locale } = this.deps;
    const uppy = this.uppy!;
    // Uppy checks for duplicates only when this hook returns nothing, and it returns the plan.
    if (uppy.checkIfFileAlreadyExists(file.id)) {
      uppy.info(uppy.i18n('noDuplicates', { fileName: file.name ?? '' }), 'error', 5000);
      return false;
    }
    if (!file.size) {
      uppy.info(locale.emptyFile(file.name ?? ''), 'error', 6000);
      return false;
    }
    if (!this.options) return file;
    try {
      const uploadPlan = planUpload(file.size, this.options.multipartThreshold, this.options.chunkSize);
      return { ...file, meta: { ...file.meta, uploadPlan } };
    } catch (err) {
      uppy.info((err as Error).message, 'error', 8000);
      return false;
    }
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
          this.deps.emit('video-created', { videoId: video._id, file: info(file) });
          return video._id;
        })
        .finally(() => this.creating.delete(file.id));
      this.creating.set(file.id, pending);
    }
    return pending;
  }
}
