/**
 * A tokenizer-free guess of how many tokens a text takes, by the classes of its characters: a run of
 * letters is a word (about one token per five letters), each digit a token, a run of punctuation one
 * token per two characters, whitespace before a word nothing, other whitespace one token per four, and
 * any other character (accents, CJK, emoji) a token each. It errs high on English (BPE merges more) and
 * on hex (a letter or digit a token, where a BPE tokenizer takes one or two): the context window uses it
 * only as a floor under the estimate calibrated on the conversation so far, so text unlike the rest —
 * hex, numbers, code, another script — is not counted at English's rate. Pure: workflow code uses it.
 *
 * Measured against SmolLM2-135M's tokenizer (llama-server `/tokenize`): 519 characters of hex are 519
 * tokens (estimated 519); a conversation's JSON in English 53 (62), English prose 121 (140), code 24
 * (27), numbers and dates 53 (47). English runs at four characters a token, hex at one.
 */

const LETTERS_PER_TOKEN = 5;
const PUNCTUATION_PER_TOKEN = 2;
const SPACES_PER_TOKEN = 4;

const RUNS = /[A-Za-z]+|[0-9]|[ \t\r\n]+|[!-/:-@[-`{-~]+|[^]/gu;

/** The guessed tokens of `text` (see the module's comment). */
export function classTokens(text: string): number {
  let tokens = 0;
  for (const [run] of text.matchAll(RUNS)) {
    const c = run.charCodeAt(0);
    if (c === 32 || c === 9 || c === 10 || c === 13) {
      // A single space before a word is part of its token; longer whitespace counts on its own.
      tokens += Math.ceil((run.length - 1) / SPACES_PER_TOKEN);
      continue;
    }
    if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)) tokens += Math.ceil(run.length / LETTERS_PER_TOKEN);
    else if (c >= 48 && c <= 57) tokens += 1;
    else if (c < 128) tokens += Math.ceil(run.length / PUNCTUATION_PER_TOKEN);
    else tokens += 1;
  }
  return tokens;
}
