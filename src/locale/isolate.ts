/**
 * A file name inside a sentence, bidi-isolated (FSI…PDI, the text form of <bdi>): right-to-left
 * characters in a name cannot reorder the words around it or disguise its extension, and a Latin name
 * keeps its place in an Arabic or Hebrew sentence.
 */
export const isolate = (name: string): string => `\u2068${name}\u2069`;
