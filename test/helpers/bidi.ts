/**
 * A file name (or a reason) as every sentence promises it: bidi-isolated, FSI (U+2068) before it and PDI (U+2069)
 * after. Tests expect it in what they read rather than strip the marks. Written here, not imported from
 * src/locale/isolate.ts: a test that built its expectation with the code's own function would pass with it broken.
 */
export const isolated = (name: string): string => `\u2068${name}\u2069`;
