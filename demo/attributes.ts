/**
 * The address bar's parameters the demo page sets on <video-uploader>, for trying options (and for the end-to-end
 * tests): the element's own attributes only, given as its `observedAttributes`, so no `on…` handler, `style` or
 * other global attribute ever comes from a link. Never where it sends its token or gets one either: a link could
 * otherwise point a visitor's uploads at someone else.
 */
const FROM_PAGE_ONLY = new Set(['base-url', 'token-url']);

export function attributesFromSearch(search: string, observed: readonly string[]): [string, string][] {
  const allowed = new Set(observed.filter((name) => !FROM_PAGE_ONLY.has(name)));
  return [...new URLSearchParams(search)].filter(([name]) => allowed.has(name));
}
