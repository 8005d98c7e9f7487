import { expect, fixture, html, waitUntil } from '@open-wc/testing';
import type { VideoUploader } from '../../src/index.js';
import { bytes, env, nextEvent, pick, uploader } from './helpers.js';
import { isolated } from '../helpers/bidi.js';

/** What a person reads, file names bidi-isolated as the element writes them. */
const text = (node: Element | null | undefined) => node?.textContent ?? '';
const root = (el: VideoUploader) => el.shadowRoot!.querySelector<HTMLElement>('.uppy-Root')!;
const title = (el: VideoUploader) => text(el.shadowRoot!.querySelector('.uppy-Dashboard-AddFiles-title'));
const note = (el: VideoUploader) => text(el.shadowRoot!.querySelector('.uppy-Dashboard-note'));

describe('<video-uploader> languages', () => {
  it("speaks its own lang from the start: Uppy's pack for the Dashboard, its own strings for the rest", async () => {
    const { api, token } = await env();
    const el = await fixture<VideoUploader>(
      html`<video-uploader id="german" lang="de" base-url=${api} .tokenProvider=${async () => token}></video-uploader>`,
    );
    await waitUntil(() => root(el), 'the Dashboard is mounted');
    // @uppy/locales de_DE: 'Dateien hier ablegen/einfügen oder %{browseFiles}'; ours: src/locale/de.ts.
    expect(title(el)).to.contain('Dateien hier ablegen');
    expect(note(el)).to.equal('Videodateien: MP4, MOV, MKV, WebM, AVI, MPEG-TS und weitere.');
    expect(root(el).dir).to.equal('ltr');
  });

  it("follows its nearest ancestor's lang, and changes language and direction when it changes", async () => {
    const el = await uploader();
    expect(title(el)).to.contain('Drop files here');
    const parent = el.parentElement!;
    parent.setAttribute('lang', 'ar');
    await waitUntil(() => note(el).startsWith('ملفات الفيديو'), 'Arabic strings');
    expect(root(el).dir, 'the Dashboard is laid out right to left').to.equal('rtl');
    expect(el.shadowRoot!.querySelector('[part=base]')!.getAttribute('dir')).to.equal('rtl');
    expect(title(el)).to.contain('اسحب الملفات هنا');
    expect(text(el.shadowRoot!.querySelector('[data-uppy-acquirer-id="Link"]')), 'the Link source is renamed').to.equal(
      'رابط',
    );
    parent.setAttribute('lang', 'he');
    await waitUntil(() => note(el).startsWith('קובצי וידאו'), 'Hebrew strings');
    expect(root(el).dir).to.equal('rtl');
    parent.setAttribute('lang', 'fr');
    await waitUntil(() => note(el).startsWith('Fichiers vidéo'), 'French strings');
    expect(root(el).dir, 'back to left to right').to.equal('ltr');
    expect(title(el)).to.contain('Déposer les fichiers ici');
    parent.removeAttribute('lang');
    await waitUntil(() => note(el).startsWith('Video files'), 'English again');
    expect(title(el)).to.contain('Drop files here');
  });

  it('falls back by prefix: pt-BR and pt-PT keep their Uppy packs and share ours; an unknown tag is English', async () => {
    const br = await uploader({ lang: 'pt-BR' });
    await waitUntil(() => note(br).includes('Arquivos'), 'Portuguese');
    expect(title(br)).to.contain('Solte ou cole arquivos aqui');
    expect(note(br)).to.contain('Arquivos de vídeo');
    const pt = await uploader({ lang: 'pt-PT' });
    await waitUntil(() => title(pt).includes('Arraste'), 'Portuguese, Portugal');
    expect(title(pt)).to.contain('Arraste ficheiros');
    expect(note(pt)).to.contain('Arquivos de vídeo');
    const tw = await uploader({ lang: 'zh-Hant-TW' });
    await waitUntil(() => note(tw).includes('视频文件'), 'Chinese');
    expect(title(tw)).to.contain('將檔案拖曳至此處');
    expect(note(tw)).to.contain('视频文件');
    const unknown = await uploader({ lang: 'tlh-Latn' });
    expect(title(unknown)).to.contain('Drop files here');
    expect(note(unknown)).to.contain('Video files');
  });

  it('takes a partial locale that overrides any string, Uppy’s included, over the language’s own', async () => {
    const el = await uploader({ lang: 'de' });
    await waitUntil(() => note(el).startsWith('Videodateien'), 'German');
    el.locale = {
      dashboardNote: 'Nur MP4, bitte.',
      uppy: { dropPasteImportFiles: 'Videos hierher ziehen, %{browseFiles} oder importieren:' },
    };
    await waitUntil(() => note(el) === 'Nur MP4, bitte.', 'the overridden note');
    expect(title(el)).to.contain('Videos hierher ziehen, Dateien durchsuchen oder importieren:');
    el.setAttribute('lang', 'fr');
    await waitUntil(() => title(el).includes('Videos hierher ziehen'), 'the override outlives a change of language');
    await waitUntil(() => text(el.shadowRoot!.querySelector('.uppy-Dashboard-browse')).includes('naviguer'), 'French');
  });

  it('says a bad attribute in the page language; config-error keeps the English message', async () => {
    const el = await uploader({ lang: 'es' });
    await waitUntil(() => note(el).startsWith('Archivos de vídeo'), 'Spanish');
    const event = nextEvent(el, 'config-error');
    el.setAttribute('chunk-size', 'mucho');
    const { detail } = await event;
    expect(detail.message).to.equal(
      'chunk-size="mucho" is not valid: use a size such as 100MB, 5GB or a number of bytes.',
    );
    await el.updateComplete;
    expect(text(el.shadowRoot!.querySelector('[role=alert]'))).to.equal(
      'chunk-size="mucho" no es válido: use un tamaño como 100MB, 5GB o un número de bytes.',
    );
    el.setAttribute('lang', 'ja');
    await waitUntil(() => text(el.shadowRoot!.querySelector('[part=error]')).includes('は無効です'), 'Japanese');
  });

  it('tells a failed upload in the page language; upload-error keeps the technical message and the code', async () => {
    // A provider that answers no token: not worth retrying, so the upload fails at once.
    const el = await uploader({ lang: 'de', 'auto-proceed': '' }, async () => '');
    await waitUntil(() => note(el).startsWith('Videodateien'), 'German');
    const failed = nextEvent(el, 'upload-error');
    await pick(el, bytes(10_000, 'urlaub.mp4'));
    const { detail } = await failed;
    expect(detail.error.message).to.equal(
      'The token provider returned no token (expected a string or {token, expiresAt}).',
    );
    expect((detail.error as Error & { code: string }).code).to.equal('token');
    const german = 'Diese Seite darf gerade nicht hochladen. Laden Sie die Seite neu oder melden Sie sich erneut an.';
    await waitUntil(
      () => el.shadowRoot!.querySelector('.uppy-Dashboard-Item-errorDetails')?.getAttribute('aria-label') === german,
      "the file's error, in German",
    );
    const notice = el.shadowRoot!.querySelector('.uppy-Informer [role=alert]')!;
    expect(text(notice), "Uppy's sentence too").to.contain(`Fehler beim Hochladen der Datei ${isolated('urlaub.mp4')}`);
    expect(notice.querySelector('[role=tooltip]')!.getAttribute('aria-label')).to.equal(german);
  });
});
