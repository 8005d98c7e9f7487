/** Hashes Blobs off the main thread: a message {id, blob} is answered with {id, md5} or {id, error}. */
import { createMD5 } from 'hash-wasm';

self.onmessage = async (event: MessageEvent<{ id: number; blob: Blob }>) => {
  const { id, blob } = event.data;
  try {
    const md5 = await createMD5();
    const reader = blob.stream().getReader();
    for (let part = await reader.read(); !part.done; part = await reader.read()) md5.update(part.value);
    self.postMessage({ id, md5: md5.digest('hex') });
  } catch (err) {
    self.postMessage({ id, error: String(err) });
  }
};
