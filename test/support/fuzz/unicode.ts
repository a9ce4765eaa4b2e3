/**
 * Odd Unicode: the characters that break naive code — lone surrogates, NUL and controls, line and
 * paragraph separators, byte-order marks, bidirectional overrides, zero-width joiners, combining
 * marks, noncharacters, emoji sequences and look-alikes of Latin letters.
 */
import fc from 'fast-check';

export const ODD_CHARS: readonly string[] = [
  '\ud800', // lone high surrogate
  '\udfff', // lone low surrogate
  '\u0000',
  '\u0007',
  '\u001b',
  '\u007f',
  '\u0085', // next line
  '\u2028', // line separator
  '\u2029', // paragraph separator
  '\ufeff', // byte-order mark
  '\u202e', // right-to-left override
  '\u2066', // left-to-right isolate
  '\u200b', // zero-width space
  '\u200d', // zero-width joiner
  '\u0301', // combining acute
  '\ufffd',
  '\uffff', // noncharacter
  '\ud83d\udc80', // emoji
  '\ud83d\udc69\u200d\ud83d\udcbb', // ZWJ sequence
  '\u0435', // Cyrillic e (looks like Latin e)
  '\u0430', // Cyrillic a
  '"',
  '\\',
  '`',
  "'",
  '$',
  '{',
  '}',
  '</script>',
  '%s',
  '${x}',
];

/** A string made of odd characters and ordinary text (any code point, lone surrogates included). */
export function oddString(maxLength = 64): fc.Arbitrary<string> {
  const unit = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...ODD_CHARS) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 2 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 4 }) },
  );
  return fc.array(unit, { minLength: 1, maxLength }).map((parts) => parts.join(''));
}

/** `name` with an invisible or look-alike change: never the tool it resembles. */
export function lookAlike(name: string): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom('\u200b', '\u200d', '\ufeff', '\u0301', '\u202e').map((c) => `${name}${c}`),
    fc.constantFrom('\u200b', '\ufeff').map((c) => `${c}${name}`),
    fc.constant(name.replace('e', '\u0435')),
    fc.constant(name.toUpperCase()),
    fc.constant(` ${name}`),
    fc.constant(`${name}\u0000`),
  );
}

/** UTF-8 bytes of a string as it goes on the wire (a lone surrogate becomes U+FFFD: 3 bytes). */
export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}
