/**
 * How an error report becomes a group (docs/client-errors.md, "Fingerprints"): the fingerprint is
 * the first 32 hexadecimal digits of the SHA-256 of the kind, the normalised message and the
 * normalised top stack frame. Normalising replaces what differs between occurrences of one bug
 * (URLs, e-mail addresses, ids, numbers) with placeholders, so "Product 123 not found" and
 * "Product 456 not found" are one group, while the same message thrown from another place in the
 * code (another top frame) is another group.
 */
import { createHash } from 'node:crypto';

/** Longest normalised message (the group's title) and top frame kept. */
const TITLE_MAX = 300;
const FRAME_MAX = 300;

const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
const URL = /\b(?:https?|wss?|file|blob):\/\/[^\s'"`()<>[\]{}]+/gi;
const EMAIL = /\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b/g;
/** Hexadecimal ids and hashes: 8 or more hex digits with at least one digit among them. */
const HEX_ID = /\b(?=[0-9a-f]*\d)[0-9a-f]{8,}\b/gi;
const HEX_NUMBER = /\b0x[0-9a-f]+\b/gi;
/** Numbers standing alone (not inside a word such as `v1` or `h2`). */
const NUMBER = /\b\d+(?:\.\d+)?\b/g;
/** What browsers put in front of an uncaught error's message. */
const BROWSER_PREFIX = /^(?:uncaught\s+(?:\(in promise\)\s*)?)+/i;

/** Replaces the parts that vary between occurrences of one error with placeholders. */
export function normaliseText(text: string): string {
  return text
    .replace(URL, '<url>')
    .replace(EMAIL, '<email>')
    .replace(UUID, '<id>')
    .replace(HEX_ID, '<id>')
    .replace(HEX_NUMBER, '<n>')
    .replace(NUMBER, '<n>')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The message as a group's title: without the browser's "Uncaught" prefix, normalised, at most 300 characters. */
export function normaliseMessage(message: string): string {
  return normaliseText(message.trim().replace(BROWSER_PREFIX, '')).slice(0, TITLE_MAX);
}

// `    at fn (https://host/assets/theme/theme.js:12:34)`, `    at https://host/x.js:1:2` (Chromium)
const V8_FRAME = /^\s*at\s+(?:(.*?)\s+\()?(.+?):(\d+):(\d+)\)?\s*$/;
// `fn@https://host/x.js:12:34` (Firefox, Safari)
const GECKO_FRAME = /^\s*(.*?)@(.+?):(\d+):(\d+)\s*$/;
/** Frames of the reporting script itself are not where an error happened. */
const REPORTER_SCRIPT = /\/error-reporter\.js$/;

/** The location without scheme, host and query: the same script is the same frame on every domain. */
function framePath(location: string): string {
  const withoutQuery = location.replace(/[?#].*$/, '');
  const path = withoutQuery.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '');
  return path.replace(UUID, '<id>');
}

/**
 * The first frame of `stack` that points into a script (its function, path, line and column), or ''
 * when the stack has none (an API failure, a section left out, a message without a stack).
 */
export function topFrame(stack: string | undefined): string {
  if (!stack) return '';
  for (const line of stack.split('\n', 60)) {
    const match = V8_FRAME.exec(line) ?? GECKO_FRAME.exec(line);
    if (!match) continue;
    const [, fn, location, row, column] = match;
    const path = framePath(location!);
    if (REPORTER_SCRIPT.test(path)) continue;
    const name = (fn ?? '').replace(/^async\s+/, '').trim() || '<anonymous>';
    return `${name} ${path}:${row}:${column}`.slice(0, FRAME_MAX);
  }
  return '';
}

export interface Fingerprinted {
  fingerprint: string;
  title: string;
  topFrame: string;
}

export function fingerprintOf(event: { kind: string; message: string; stack?: string | null }): Fingerprinted {
  const title = normaliseMessage(event.message) || '<empty>';
  const frame = topFrame(event.stack ?? undefined);
  const fingerprint = createHash('sha256').update(`${event.kind}\n${title}\n${frame}`).digest('hex').slice(0, 32);
  return { fingerprint, title, topFrame: frame };
}
