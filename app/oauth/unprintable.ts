/**
 * Characters that have no place in a client's registered name or addresses: control characters
 * (a NUL, a line break: C0, DEL and C1) and the bidi controls that reorder how the text around them
 * is shown, so that a name or an address could read on the consent page as something it is not.
 */

/** C0, DEL and C1 controls; the bidi embeddings, overrides and isolates; the line and paragraph separators. */
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;
/** The left-to-right and right-to-left marks too (a name in Arabic or Hebrew may need them; an address never does). */
const CONTROLS_AND_MARKS = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u2028\u2029\u200e\u200f]/;

/** The first such character of `text`, named by its code point (`the character U+0000`), or undefined. */
export function unprintable(text: string, which: 'bidi-marks-too' | 'controls'): string | undefined {
  const found = (which === 'controls' ? CONTROLS : CONTROLS_AND_MARKS).exec(text);
  return found ? `the character ${codePoint(found[0])}` : undefined;
}

/** `text` with every such character written as \\uXXXX, to quote it in an error description. */
export function visible(text: string): string {
  return text.replace(new RegExp(CONTROLS_AND_MARKS.source, 'g'), (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

const codePoint = (c: string) => `U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
