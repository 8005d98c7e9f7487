import type { Box, FromWorker, Probe, ToWorker, Trim } from './protocol.js';

/** Seconds of the file the probe encodes to time this device's encoder. */
export const PROBE_SECONDS = 3;

/**
 * One shrinking worker (shrink.worker.ts) for one job: a probe, or a conversion. Its script, with Mediabunny, is
 * inlined into a chunk of its own (`?worker&inline`: upload/verify.ts says why), imported when a video first needs
 * shrinking. Stopping it is the only cancel: its decoders and encoders go with it.
 */
export class Shrinker {
  private readonly worker: Promise<Worker>;
  private failed: ((err: Error) => void) | undefined;

  constructor() {
    this.worker = import('./shrink.worker.ts?worker&inline').then(({ default: ShrinkWorker }) => {
      const worker = new ShrinkWorker();
      worker.onerror = (event) => {
        event.preventDefault();
        this.failed?.(
          new Error(`The browser's shrinking worker stopped: ${event.message || 'its script did not load'}`),
        );
      };
      return worker;
    });
  }

  private async send(message: ToWorker): Promise<Worker> {
    const worker = await this.worker;
    worker.postMessage(message);
    return worker;
  }

  /**
   * What can be made of `file` for `box` on this device, from its first PROBE_SECONDS (with no box, only what the
   * file is: its length and rate, for a trim); never throws.
   */
  async probe(file: Blob, box: Box | null): Promise<Probe> {
    try {
      const worker = await this.send({ type: 'probe', file, box, seconds: PROBE_SECONDS });
      return await new Promise<Probe>((resolve, reject) => {
        this.failed = reject;
        worker.onmessage = (event: MessageEvent<FromWorker>) => {
          if (event.data.type === 'probed') resolve(event.data.probe);
        };
      });
    } catch (err) {
      return { shrinks: false, reason: 'no-webcodecs', message: (err as Error).message };
    }
  }

  /**
   * Converts `file` and hands over each chunk of the output as it is cut (2, 3 … N, then 1); `onChunk` is not
   * awaited: `sent(chunkId)` tells the worker a chunk is off its hands. Resolves with the output's size once every
   * chunk has been handed over; rejects when the conversion fails.
   */
  async convert(
    file: Blob,
    { box, trim, chunkSize, window }: { box: Box | null; trim?: Trim; chunkSize: number; window: number },
    on: { chunk: (chunkId: number, bytes: ArrayBuffer) => void; progress: (fraction: number, written: number) => void },
  ): Promise<{ size: number; chunks: number }> {
    const worker = await this.send({ type: 'convert', file, box, trim, chunkSize, window });
    return new Promise((resolve, reject) => {
      this.failed = reject;
      worker.onmessage = (event: MessageEvent<FromWorker>) => {
        const message = event.data;
        if (message.type === 'chunk') on.chunk(message.chunkId, message.bytes);
        else if (message.type === 'progress') on.progress(message.fraction, message.written);
        else if (message.type === 'done') resolve(message);
        else if (message.type === 'failed') reject(new Error(message.message));
      };
    });
  }

  sent(chunkId: number): void {
    void this.send({ type: 'sent', chunkId });
  }

  /** Ends the worker; a conversion under way rejects with an AbortError. */
  stop(): void {
    this.failed?.(new DOMException('The shrinking was stopped.', 'AbortError'));
    void this.worker.then((worker) => worker.terminate());
  }
}
