/**
 * Plays an HLS address in a <video>. This module is the only one that imports hls.js, and the element
 * imports it only when a preview is shown, so hls.js is a chunk of its own that most pages never load.
 * hls.js is asked first: this Chromium answers "maybe" to canPlayType for HLS and then cannot play it.
 */
import Hls from 'hls.js';

export interface Player {
  destroy(): void;
}

export function playHls(video: HTMLVideoElement, url: string, onFatal: (message: string) => void): Player {
  if (Hls.isSupported()) {
    const hls = new Hls({ enableWorker: true });
    hls.on(Hls.Events.ERROR, (_event, data) => {
      if (data.fatal) onFatal(`${data.type}: ${data.details}`);
    });
    hls.loadSource(url);
    hls.attachMedia(video);
    return { destroy: () => hls.destroy() };
  }
  if (video.canPlayType('application/vnd.apple.mpegurl')) {
    video.src = url;
    return { destroy: () => video.removeAttribute('src') };
  }
  throw new Error('unsupported');
}
