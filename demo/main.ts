import { VIDEO_UPLOADER_EVENTS } from '../src/events.js';

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

// Attributes from the address bar, for trying options (and for the end-to-end tests). Never where the
// element sends its token or gets one: a link could otherwise point a visitor's uploads at someone else.
const FROM_PAGE_ONLY = new Set(['base-url', 'token-url']);
for (const [name, value] of new URLSearchParams(location.search)) {
  if (/^[a-z-]+$/.test(name) && !FROM_PAGE_ONLY.has(name)) uploader.setAttribute(name, value);
}

const config = (await (await fetch('/api/config')).json()) as { baseUrl: string };
if (!uploader.hasAttribute('base-url')) uploader.setAttribute('base-url', config.baseUrl);
// Defined last, so the element starts with its attributes in place.
await import('../src/index.js');
