/** The deepest nesting of arrays and objects a request body may have (docs/fair-use.md#request-bodies). */
export const MAX_JSON_DEPTH = 32;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/**
 * Whether JSON text nests arrays and objects deeper than `limit`, decided in one pass over the text
 * without recursion and before anything parses it, so no later step that walks the value (the request
 * fingerprint, validation, logging) ever meets a depth a client chose. Brackets inside strings do not
 * count. The text need not be valid JSON: the parser that runs after this refuses what is not.
 */
export const exceedsJsonDepth = (text: string, limit: number = MAX_JSON_DEPTH): boolean => {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === BACKSLASH) {
        // An escape takes the next character with it (\" does not end the string).
        index += 1;
      } else if (code === QUOTE) {
        inString = false;
      }
    } else if (code === QUOTE) {
      inString = true;
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      depth += 1;
      if (depth > limit) {
        return true;
      }
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth -= 1;
    }
  }
  return false;
};
