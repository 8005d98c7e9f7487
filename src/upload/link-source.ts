import { UIPlugin, type Body, type UIPluginOptions, type Uppy } from '@uppy/core';
import type Dashboard from '@uppy/dashboard';
import { h } from 'preact';
import type { Strings } from '../locale/en.js';
import type { VideoMeta } from './aws-s3-options.js';
import { LINK_SOURCE } from './dashboard-host.js';

export interface LinkSourceOptions extends UIPluginOptions {
  /** The element's sentences in the current language. */
  strings: () => Strings;
  /** A URL the person gave: the element has the service import it (POST /videos/{id}/import). */
  onLink: (url: string) => void;
}

/**
 * The Dashboard's "Link" source: paste the address of a video file, and the service fetches it. Our own small
 * plugin, since @uppy/url needs a Companion server, which the video service's import replaces.
 */
export class LinkSource extends UIPlugin<LinkSourceOptions, VideoMeta, Body> {
  /** The Dashboard draws it on the source's button. */
  icon: () => ReturnType<typeof h>;

  constructor(uppy: Uppy<VideoMeta, Body>, opts: LinkSourceOptions) {
    super(uppy, opts);
    this.id = LINK_SOURCE;
    this.type = 'acquirer';
    this.title = opts.strings().linkSource;
    this.icon = () =>
      h(
        'svg',
        { 'aria-hidden': 'true', focusable: 'false', width: 32, height: 32, viewBox: '0 0 32 32' },
        h('path', {
          fill: '#ff753e',
          d: 'M15.9 19.5l-2.4 2.4a3.5 3.5 0 01-5-5l2.4-2.4-1.4-1.4-2.4 2.4a5.5 5.5 0 007.8 7.8l2.4-2.4-1.4-1.4zm4.6-11.6l-2.4 2.4 1.4 1.4 2.4-2.4a3.5 3.5 0 015 5l-2.4 2.4 1.4 1.4 2.4-2.4a5.5 5.5 0 00-7.8-7.8zm-6.4 10l5.8-5.8-1.4-1.4-5.8 5.8 1.4 1.4z',
        }),
      );
  }

  override install(): void {
    if (this.opts.target) this.mount(this.opts.target, this);
  }

  override uninstall(): void {
    this.unmount();
  }

  override render() {
    const t = this.opts.strings();
    const submit = (event: Event) => {
      event.preventDefault();
      const input = (event.currentTarget as HTMLFormElement).elements.namedItem('url') as HTMLInputElement;
      if (!input.reportValidity()) return;
      this.opts.onLink(input.value.trim());
      input.value = '';
      this.uppy.getPlugin<Dashboard<VideoMeta, Body>>('Dashboard')?.hideAllPanels();
    };
    return h(
      'form',
      { class: 'video-uploader-link', onSubmit: submit },
      h(
        'label',
        { class: 'video-uploader-link-label' },
        t.linkLabel,
        h('input', {
          class: 'uppy-u-reset uppy-c-textInput video-uploader-link-input',
          name: 'url',
          type: 'url',
          required: true,
          pattern: 'https?://.+',
          placeholder: 'https://',
          autocomplete: 'off',
        }),
      ),
      h('button', { type: 'submit', class: 'uppy-u-reset uppy-c-btn uppy-c-btn-primary' }, t.linkSubmit),
    );
  }
}
