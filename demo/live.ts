import { RECORDING_CLIPPER_EVENTS } from '../src/clipper/events.js';

const clipper = document.querySelector('recording-clipper')!;
const log = document.querySelector('#events')!;

for (const name of RECORDING_CLIPPER_EVENTS) {
  clipper.addEventListener(name, (event) => {
    const item = document.createElement('li');
    item.dataset.event = name;
    item.textContent = `${name} ${JSON.stringify((event as CustomEvent).detail)}`;
    log.append(item);
  });
}

const [config, live] = await Promise.all([
  fetch('/api/config').then((r) => r.json() as Promise<{ baseUrl: string }>),
  fetch('/api/live').then((r) => r.json() as Promise<{ streamId: string; server: string; streamKey: string }>),
]);
document.querySelector('#server')!.textContent = live.server;
document.querySelector('#key')!.textContent = live.streamKey;
document.querySelector('#ffmpeg')!.textContent =
  `ffmpeg -re -f lavfi -i testsrc2=size=1280x720:rate=30 -f lavfi -i sine=frequency=440 -c:v libx264 -preset veryfast -g 60 -pix_fmt yuv420p -c:a aac -f flv ${live.server}/${live.streamKey}`;
const lang = new URLSearchParams(location.search).get('lang');
if (lang) document.documentElement.lang = lang;
clipper.setAttribute('base-url', config.baseUrl);
clipper.setAttribute('stream-id', live.streamId);
await import('../src/clipper.js');
