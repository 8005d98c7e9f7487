import { VideoServiceClient } from '../api/client.js';
import { TokenCache, tokenFromUrl, type TokenProvider } from '../api/token.js';
import type { VideoUploaderEventDetails } from '../events.js';
import { OptionError } from '../options.js';

/** What an element configures its client with: its `tokenProvider` property and `token-url` attribute. */
interface TokenSource extends HTMLElement {
  tokenProvider?: TokenProvider;
  tokenUrl?: string;
}

/**
 * Configuration → client → `config-error`, for both elements: the element's options are read (an OptionError names
 * the bad attribute), then its token source; a client is made when the address or the token source changed, and a
 * bad value is shown (`error`) and told once by `config-error` (again only when the message changes).
 */
export class ClientController {
  client: VideoServiceClient | null = null;
  /** The value the element cannot use, to show; undefined when the configuration is good. */
  error: OptionError | undefined;
  private tokens: TokenCache | undefined;
  private source: { provider?: TokenProvider; url?: string; scope?: string } = {};

  constructor(private readonly host: TokenSource) {}

  /**
   * `read` resolves the element's own options, throwing an OptionError for a bad one; they are returned when all is
   * good (the token source included), undefined when not. `scope` is what the tokens are for, when they are for one
   * thing only (the clipper's stream): a new scope drops the tokens of the old one, as a new source does.
   */
  configure<O extends { baseUrl: string }>(read: () => O, scope?: string): O | undefined {
    const { tokenProvider: provider, tokenUrl: url } = this.host;
    const newSource = provider !== this.source.provider || url !== this.source.url || scope !== this.source.scope;
    if (newSource) {
      this.source = { provider, url, scope };
      const tokens = provider ?? (url ? tokenFromUrl(new URL(url, document.baseURI).href) : undefined);
      this.tokens = tokens ? new TokenCache(tokens) : undefined;
    }
    const previous = this.error?.message;
    try {
      const options = read();
      if (!this.tokens) throw new OptionError('token-url', url ?? '', 'token');
      this.error = undefined;
      if (this.client?.baseUrl !== options.baseUrl || newSource)
        this.client = new VideoServiceClient(options.baseUrl, this.tokens);
      return options;
    } catch (err) {
      if (!(err instanceof OptionError)) throw err;
      this.error = err;
      this.client = null;
      if (err.message !== previous) this.emit({ attribute: err.attribute, value: err.value, message: err.message });
      return undefined;
    }
  }

  private emit(detail: VideoUploaderEventDetails['config-error']): void {
    this.host.dispatchEvent(new CustomEvent('config-error', { detail, bubbles: true, composed: true }));
  }
}
