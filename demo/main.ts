import { VIDEO_UPLOADER_EVENTS } from '../src/events.js';
import { attributesFromSearch } from './attributes.js';

const uploader = document.querySelector('video-uploader')!;
const log = document.querySelector('#events')!;

/** Shows each event as it arrives; progress updates one line per file instead of flooding the list. */
for (const name of VIDEO_UPLOADER_EVENTS) {
  uploader.addEventListener(name, (event) => {
    const detail = (event as CustomEvent).detail as Record<string, unknown>;
    const text = JSON.stringify(detail, (key, value) =>
      key === 'data' ? undefined : value instanceof Error ? value.message : value,
    );
    const fileId = (detail.file as { id?: string } | undefined)?.id;
    const id = name === 'upload-progress' ? `progress-${fileId}` : '';
    let item = id ? log.querySelector<HTMLLIElement>(`[data-id="${CSS.escape(id)}"]`) : null;
    if (!item) {
      item = document.createElement('li');
      if (id) item.dataset.id = id;
      item.dataset.event = name;
      log.append(item);
    }
    item.replaceChildren(
      Object.assign(document.createElement('span'), { className: 'name', textContent: name }),
      ` ${text}`,
    );
  });
}

// The element is defined only once its attributes are in place, so it starts with them: it waits out of the
// page while the library registers it (which tells its attributes), and is upgraded when it comes back.
const config = (await (await fetch('/api/config')).json()) as { baseUrl: string };
const place = new Comment();
uploader.replaceWith(place);
const { VideoUploader } = await import('../src/index.js');
for (const [name, value] of attributesFromSearch(location.search, VideoUploader.observedAttributes)) {
  uploader.setAttribute(name, value);
}
const lang = new URLSearchParams(location.search).get('lang');
if (lang) document.documentElement.lang = lang;
uploader.setAttribute('base-url', config.baseUrl);
place.replaceWith(uploader);
