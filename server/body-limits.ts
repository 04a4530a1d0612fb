// The limits every request body is held to, enforced by the body parser before any route runs
// (server/app.ts) and stated in the OpenAPI description and error catalogue.

/** Bytes in a request body (413 `payload_too_large` above). */
export const BODY_LIMIT = 262_144;
/** The same, as the documentation writes it (`262,144`): grouped by hand, since the first
 *  toLocaleString of a process loads ICU's data (25 ms), and `rules calculate` loads this module. */
export const BODY_LIMIT_TEXT = String(BODY_LIMIT).replace(/\B(?=(\d{3})+$)/g, ',');

/**
 * Arrays and objects nested inside each other in a JSON body (400 `invalid_request` above). The
 * deepest legitimate body (a migration household: body → household → group → entity →
 * variable → period) is 6 levels; code that walks client data recursively (JSON.stringify in
 * messages and persistence, structuredClone, validation) overflows the stack only in the
 * thousands, so 64 leaves room for open values and stays far from that.
 */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const [OPEN_ARRAY, OPEN_OBJECT, CLOSE_ARRAY, CLOSE_OBJECT] = [0x5b, 0x7b, 0x5d, 0x7d];

/**
 * Whether JSON text nests arrays and objects deeper than `limit` (the outermost container is
 * level 1). One linear pass over the raw text, counting brackets outside strings, so a hostile
 * body cannot make this check itself recurse; malformed text is left to JSON.parse. A string is
 * passed over with indexOf, from quote to quote: most of a household's text is its keys (legal
 * ids of 80 characters), and a character at a time the check cost 47 µs for each.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = stringEnd(text, i);
      if (i < 0) return false; // not closed: malformed
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) depth--;
  }
  return false;
}

/** Where the string opened at `open` closes: the next quote after it not escaped (an odd run of backslashes before it); -1 if none. */
function stringEnd(text: string, open: number): number {
  for (let at = text.indexOf('"', open + 1); at >= 0; at = text.indexOf('"', at + 1)) {
    let backslashes = 0;
    while (at - backslashes - 1 > open && text.charCodeAt(at - backslashes - 1) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
  return -1;
}
