import { UIPlugin, type Body, type UIPluginOptions, type Uppy, type UppyFile } from '@uppy/core';
import { h } from 'preact';
import type { Strings } from '../locale/en.js';
import type { VideoMeta } from '../upload/aws-s3-options.js';
import { formatDuration } from '../upload/media-check.js';

type File = UppyFile<VideoMeta, Body>;

export interface ShrinkEditorOptions extends UIPluginOptions {
  strings: () => Strings;
}

export const SHRINK_EDITOR = 'ShrinkEditor';

/**
 * The file card's choices under `max-upload-resolution`: the Dashboard's editor panel (the pencil on the card, and
 * opened by itself for the first video probed) lists what the video can be sent as, each with its predicted time
 * (`1080p · about 4 min`, `Original · about 15 min`), the attribute's choice first and chosen. Save keeps the choice in
 * the file's meta (`shrink`), which the uploader reads when the upload starts. A video the browser cannot re-encode
 * says so, and is sent as it is.
 */
export class ShrinkEditor extends UIPlugin<ShrinkEditorOptions, VideoMeta, Body> {
  private fileId: string | undefined;
  private picked: string | undefined;

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
  }

  save(): void {
    const file = this.fileId ? this.uppy.getFile(this.fileId) : undefined;
    const shrink = file?.meta.shrink;
    if (file && shrink && this.picked && this.picked in shrink.predicted)
      this.uppy.setFileMeta(file.id, { shrink: { ...shrink, choice: this.picked } });
  }

  override render() {
    const t = this.opts.strings();
    const shrink = this.fileId ? this.uppy.getFile(this.fileId)?.meta.shrink : undefined;
    if (!shrink) return h('p', { class: 'video-uploader-shrink' }, t.shrinkMeasuring);
    if (!shrink.canEncode) return h('p', { class: 'video-uploader-shrink', role: 'status' }, t.shrinkAsIs);
    const choices = Object.keys(shrink.predicted).sort((a) => (a === 'original' ? 1 : -1));
    return h(
      'fieldset',
      { class: 'video-uploader-shrink' },
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
    );
  }
}
