import { UIPlugin, type Body, type UIPluginOptions, type Uppy, type UppyFile } from '@uppy/core';
import { h } from 'preact';
import type { ShrinkStrings } from '../locale/shrink.js';
import type { VideoMeta } from '../upload/aws-s3-options.js';
import { formatDuration } from '../upload/media-check.js';
import type { TrimRange, VideoTrimEditor } from './trim-editor.js';
import './trim-editor.js';

type File = UppyFile<VideoMeta, Body>;

export interface ShrinkEditorOptions extends UIPluginOptions {
  strings: () => ShrinkStrings;
  /** `trim`: the panel has the trim editor too. */
  trim: () => boolean;
}

export const SHRINK_EDITOR = 'ShrinkEditor';

/**
 * The panel's look, adopted into the element's shadow root when shrinking's code loads (shrink-uploader.ts): a page
 * without `max-upload-resolution` or `trim` never downloads it.
 */
export const SHRINK_EDITOR_CSS = `
.video-uploader-shrink {
  display: grid;
  align-content: start;
  gap: 1rem;
  padding: 1rem 1.5rem;
  margin: 0 auto;
  box-sizing: border-box;
  width: 100%;
  max-width: 40rem;
  align-self: stretch;
  overflow-y: auto;
  color: var(--video-uploader-text);
}
/* The Dashboard is 380 px high: the video leaves room for the thumbs and the choices. */
.video-uploader-shrink video-trim-editor::part(video) {
  max-block-size: 9rem;
  object-fit: contain;
}
.video-uploader-shrink fieldset {
  display: grid;
  gap: 0.6rem;
  margin: 0;
  padding: 0;
  border: none;
}
.video-uploader-shrink legend {
  font-weight: 600;
  padding: 0 0 0.5rem;
}
`;

/**
 * The file card's choices under `max-upload-resolution`: the Dashboard's editor panel (the pencil on the card, and
 * opened by itself for the first video probed) lists what the video can be sent as, each with its predicted time
 * (`1080p · about 4 min`, `Original · about 15 min`), the attribute's choice first and chosen. Save keeps the choice in
 * the file's meta (`shrink`), which the uploader reads when the upload starts. A video the browser cannot re-encode
 * says so, and is sent as it is. With `trim`, the panel has the video's `<video-trim-editor>` below: Save keeps its
 * range in the meta (`trim`), and only that part is sent.
 */
export class ShrinkEditor extends UIPlugin<ShrinkEditorOptions, VideoMeta, Body> {
  private fileId: string | undefined;
  private picked: string | undefined;
  private range: TrimRange | undefined;
  /** The trim editor drawn, and the file it was given. */
  private trimEditor: { el: VideoTrimEditor; fileId: string } | undefined;

  constructor(uppy: Uppy<VideoMeta, Body>, opts: ShrinkEditorOptions) {
    super(uppy, opts);
    this.id = SHRINK_EDITOR;
    this.type = 'editor';
  }

  override install(): void {
    if (this.opts.target) this.mount(this.opts.target, this);
  }

  override uninstall(): void {
    this.unmount();
  }

  canEditFile(file: File): boolean {
    return file.meta.shrink !== undefined;
  }

  selectFile(file: File): void {
    this.fileId = file.id;
    this.picked = file.meta.shrink?.choice;
    this.range = file.meta.trim;
  }

  save(): void {
    const file = this.fileId ? this.uppy.getFile(this.fileId) : undefined;
    const shrink = file?.meta.shrink;
    if (!file || !shrink) return;
    const choice = this.picked && this.picked in shrink.predicted ? this.picked : shrink.choice;
    // The whole video chosen is no trim at all: it is sent as it is, or only shrunk.
    const whole = !this.range || (this.range.start <= 0 && this.range.end >= (shrink.duration ?? Infinity));
    this.uppy.setFileMeta(file.id, { shrink: { ...shrink, choice }, trim: whole ? undefined : this.range });
  }

  override render() {
    const t = this.opts.strings();
    const file = this.fileId ? this.uppy.getFile(this.fileId) : undefined;
    const shrink = file?.meta.shrink;
    if (!file || !shrink) return h('p', { class: 'video-uploader-shrink' }, t.shrinkMeasuring);
    const readable = shrink.canEncode || shrink.reason === 'fits';
    const choices = Object.keys(shrink.predicted).sort((a) => (a === 'original' ? 1 : -1));
    return h(
      'div',
      { class: 'video-uploader-shrink' },
      !readable && h('p', { role: 'status' }, t.shrinkAsIs),
      choices.length > 1 &&
        h(
          'fieldset',
          null,
          h('legend', null, t.shrinkLegend),
          choices.map((choice) =>
            h(
              'label',
              { key: choice },
              h('input', {
                type: 'radio',
                name: 'video-uploader-shrink',
                value: choice,
                checked: (this.picked ?? shrink.choice) === choice,
                onChange: () => (this.picked = choice),
              }),
              ` ${t.shrinkChoice(choice === 'original' ? t.shrinkOriginal : choice, formatDuration(shrink.predicted[choice]!))}`,
            ),
          ),
        ),
      this.opts.trim() &&
        readable &&
        shrink.duration &&
        h('video-trim-editor', { ref: (el: VideoTrimEditor | null) => el && this.showTrim(el, file) }),
    );
  }

  /** Gives a new trim editor (or a new file) its video, scale and range; the person's moves then stay its own. */
  private showTrim(el: VideoTrimEditor, file: File): void {
    if (this.trimEditor?.el === el && this.trimEditor.fileId === file.id) return;
    if (this.trimEditor?.el !== el)
      el.addEventListener('trim-change', (event) => (this.range = (event as CustomEvent<TrimRange>).detail));
    this.trimEditor = { el, fileId: file.id };
    el.strings = this.opts.strings();
    el.duration = file.meta.shrink!.duration!;
    el.frameRate = file.meta.shrink!.frameRate ?? 30;
    el.start = this.range?.start ?? 0;
    el.end = this.range?.end;
    el.src = file.data as Blob;
  }
}
