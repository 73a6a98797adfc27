/**
 * Fetching a URL that a merchant or a shopper gave us, without letting them reach our own network
 * (SSRF). Used by the vision worker for product images and by query-by-image-URL.
 *
 * - http and https only, no credentials in the URL, ports as given.
 * - Every address the host resolves to must be public: loopback, private (RFC 1918, ULA), link-local,
 *   CGNAT, multicast, reserved and documentation ranges, cloud metadata (169.254.169.254,
 *   fd00:ec2::254) and IPv4 addresses hidden in IPv6 (mapped, translated, compatible, NAT64, 6to4)
 *   are judged by the IPv4 address inside.
 * - The check happens inside the socket's DNS lookup, so the address that was checked is the address
 *   connected to (a DNS answer that changes between check and connect — rebinding — cannot slip
 *   through). IP literals are checked before connecting.
 * - Redirects are followed by hand (at most `maxRedirects`), each hop checked the same way.
 * - One deadline for the whole fetch, a size limit enforced while streaming (and from
 *   Content-Length up front).
 *
 * `allowAddresses` (exact IP literals) exists for tests against a local HTTP server only;
 * configuration honours it only with NODE_ENV=test. Everything else stays refused.
 */
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { LookupFunction } from 'node:net';

export interface SafeFetchOptions {
  timeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
  /** Addresses allowed although not public (tests only). */
  allowAddresses?: readonly string[];
  /** Sent as Accept. */
  accept?: string;
  userAgent?: string;
}

export interface SafeFetchResult {
  body: Buffer;
  /** As declared by the server; never trusted for what the content is. */
  contentType: string | undefined;
  /** The URL the body came from, after redirects. */
  finalUrl: string;
}

export type SafeFetchReason =
  | 'invalid_url'
  | 'scheme_not_allowed'
  | 'credentials_not_allowed'
  | 'address_not_allowed'
  | 'dns_failed'
  | 'timeout'
  | 'too_large'
  | 'too_many_redirects'
  | 'http_status'
  | 'network';

/** A fetch that was refused or failed; `transient` failures are worth retrying later. */
export class SafeFetchError extends Error {
  constructor(
    readonly reason: SafeFetchReason,
    message: string,
    readonly transient: boolean,
    readonly httpStatus?: number,
  ) {
    super(message);
    this.name = 'SafeFetchError';
  }
}

// ---------------------------------------------------------------------------------------------
// Address classification

/** 16 bytes of an IPv6 address (also parses an embedded dotted IPv4 tail); undefined if invalid. */
export function parseIpv6(input: string): number[] | undefined {
  let text = input.trim();
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  if (net.isIPv6(text) === false) return undefined;
  let tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  const last = text.slice(lastColon + 1);
  if (last.includes('.')) {
    const v4 = parseIpv4(last);
    if (!v4) return undefined;
    tail = v4;
    text = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const [head, rest] = text.split('::') as [string, string | undefined];
  const groups = (s: string): number[] => (s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
  const h = groups(head);
  const r = rest === undefined ? [] : groups(rest);
  const fill = rest === undefined ? 0 : 8 - h.length - r.length;
  const words = [...h, ...new Array<number>(fill).fill(0), ...r];
  if (words.length !== 8 || words.some((w) => Number.isNaN(w) || w < 0 || w > 0xffff)) return undefined;
  const bytes = words.flatMap((w) => [w >> 8, w & 0xff]);
  if (tail.length === 4) bytes.splice(12, 4, ...tail);
  return bytes;
}

export function parseIpv4(text: string): number[] | undefined {
  if (!net.isIPv4(text)) return undefined;
  return text.split('.').map(Number);
}

const V4_BLOCKED: Array<[number[], number]> = [
  [[0, 0, 0, 0], 8], // "this" network
  [[10, 0, 0, 0], 8], // private
  [[100, 64, 0, 0], 10], // carrier-grade NAT
  [[127, 0, 0, 0], 8], // loopback
  [[169, 254, 0, 0], 16], // link-local, cloud metadata 169.254.169.254
  [[172, 16, 0, 0], 12], // private
  [[192, 0, 0, 0], 24], // IETF protocol assignments
  [[192, 0, 2, 0], 24], // documentation
  [[192, 31, 196, 0], 24], // AS112
  [[192, 52, 193, 0], 24], // AMT
  [[192, 88, 99, 0], 24], // 6to4 relay anycast
  [[192, 168, 0, 0], 16], // private
  [[192, 175, 48, 0], 24], // AS112
  [[198, 18, 0, 0], 15], // benchmarking
  [[198, 51, 100, 0], 24], // documentation
  [[203, 0, 113, 0], 24], // documentation
  [[224, 0, 0, 0], 4], // multicast
  [[240, 0, 0, 0], 4], // reserved, broadcast
];

function inPrefix(bytes: number[], prefix: number[], bits: number): boolean {
  for (let i = 0; i < prefix.length && bits > 0; i += 1, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((bytes[i]! & mask) !== (prefix[i]! & mask)) return false;
  }
  return true;
}

function isPublicV4(bytes: number[]): boolean {
  return !V4_BLOCKED.some(([prefix, bits]) => inPrefix(bytes, prefix, bits));
}

const hex = (s: string): number[] => parseIpv6(s)!;
const V6_BLOCKED: Array<[number[], number]> = [
  [hex('::'), 96], // unspecified, loopback, IPv4-compatible (deprecated)
  [hex('100::'), 64], // discard
  [hex('2001::'), 23], // IETF protocol assignments (Teredo, ORCHID, benchmarking…)
  [hex('2001:db8::'), 32], // documentation
  [hex('3fff::'), 20], // documentation
  [hex('5f00::'), 16], // segment routing
  [hex('fc00::'), 7], // unique local (includes fd00:ec2::254, the AWS metadata address)
  [hex('fe80::'), 10], // link-local
  [hex('fec0::'), 10], // site-local (deprecated)
  [hex('ff00::'), 8], // multicast
  [hex('64:ff9b:1::'), 48], // local-use NAT64
];

/**
 * Whether `address` (IPv4 or IPv6 text) is a public unicast address we may connect to. IPv4 inside
 * IPv6 (mapped ::ffff:a.b.c.d, translated ::ffff:0:a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16) is
 * judged by its IPv4 part.
 */
export function isPublicAddress(address: string): boolean {
  const v4 = parseIpv4(address);
  if (v4) return isPublicV4(v4);
  const v6 = parseIpv6(address);
  if (!v6) return false;
  if (inPrefix(v6, hex('::ffff:0:0'), 96)) return isPublicV4(v6.slice(12));
  if (inPrefix(v6, hex('::ffff:0:0:0'), 96)) return isPublicV4(v6.slice(12));
  if (inPrefix(v6, hex('64:ff9b::'), 96)) return isPublicV4(v6.slice(12));
  if (inPrefix(v6, hex('2002::'), 16)) return isPublicV4(v6.slice(2, 6));
  return !V6_BLOCKED.some(([prefix, bits]) => inPrefix(v6, prefix, bits));
}

// ---------------------------------------------------------------------------------------------
// Fetching

function refuse(address: string, host: string): SafeFetchError {
  return new SafeFetchError('address_not_allowed', `${host} resolves to ${address}, which is not a public address.`, false);
}

function allowedAddress(address: string, allowAddresses: readonly string[]): boolean {
  return allowAddresses.includes(address) || isPublicAddress(address);
}

/** A lookup for sockets that resolves, then refuses unless every address is public. */
export function guardedLookup(allowAddresses: readonly string[] = []): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true, verbatim: true }, (error, addresses) => {
      if (error)
        return callback(
          new SafeFetchError(
            'dns_failed',
            `${hostname} could not be resolved (${error.code ?? error.message}).`,
            error.code === 'EAI_AGAIN',
          ),
          '',
          4,
        );
      const list = addresses as dns.LookupAddress[];
      if (list.length === 0) return callback(new SafeFetchError('dns_failed', `${hostname} has no address.`, false), '', 4);
      const bad = list.find((a) => !allowedAddress(a.address, allowAddresses));
      if (bad) return callback(refuse(bad.address, hostname), '', 4);
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      return callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

/** Checks a URL before any connection: scheme, credentials, and an IP-literal host. */
export function checkUrl(raw: string, allowAddresses: readonly string[] = []): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new SafeFetchError('invalid_url', 'The image URL is not a valid absolute URL.', false);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new SafeFetchError('scheme_not_allowed', `Only http and https URLs are fetched, not ${url.protocol.replace(/:$/, '')}.`, false);
  if (url.username || url.password) throw new SafeFetchError('credentials_not_allowed', 'URLs with credentials are not fetched.', false);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(host) && !allowedAddress(host, allowAddresses)) throw refuse(host, host);
  return url;
}

function once(
  url: URL,
  options: SafeFetchOptions,
  deadline: number,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body?: Buffer }> {
  return new Promise((resolve, reject) => {
    const remaining = deadline - Date.now();
    if (remaining <= 0) return reject(new SafeFetchError('timeout', 'The image took too long to fetch.', true));
    const lib = url.protocol === 'https:' ? https : http;
    const request = lib.request(
      url,
      {
        method: 'GET',
        lookup: guardedLookup(options.allowAddresses),
        agent: false,
        headers: {
          Accept: options.accept ?? 'image/*',
          'User-Agent': options.userAgent ?? 'commerce-vision/1.0',
          'Accept-Encoding': 'identity',
        },
        timeout: remaining,
      },
      (response) => {
        const status = response.statusCode ?? 0;
        if (status >= 300 && status < 400 && response.headers.location) {
          response.resume();
          return resolve({ status, headers: response.headers });
        }
        if (status < 200 || status >= 300) {
          response.resume();
          return reject(
            new SafeFetchError(
              'http_status',
              `The image server answered ${status}.`,
              status >= 500 || status === 429 || status === 408,
              status,
            ),
          );
        }
        const declared = Number(response.headers['content-length'] ?? NaN);
        if (Number.isFinite(declared) && declared > options.maxBytes) {
          response.destroy();
          return reject(new SafeFetchError('too_large', `The image is larger than ${options.maxBytes} bytes.`, false));
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > options.maxBytes) {
            response.destroy();
            request.destroy();
            reject(new SafeFetchError('too_large', `The image is larger than ${options.maxBytes} bytes.`, false));
            return;
          }
          chunks.push(chunk);
        });
        response.on('end', () => resolve({ status, headers: response.headers, body: Buffer.concat(chunks) }));
        response.on('error', (error) => reject(new SafeFetchError('network', `The image download failed (${error.message}).`, true)));
      },
    );
    const timer = setTimeout(() => request.destroy(new SafeFetchError('timeout', 'The image took too long to fetch.', true)), remaining);
    request.on('timeout', () => request.destroy(new SafeFetchError('timeout', 'The image took too long to fetch.', true)));
    request.on('error', (error) =>
      reject(
        error instanceof SafeFetchError
          ? error
          : new SafeFetchError(
              'network',
              `The image could not be fetched (${(error as NodeJS.ErrnoException).code ?? error.message}).`,
              true,
            ),
      ),
    );
    request.on('close', () => clearTimeout(timer));
    request.end();
  });
}

/** Fetches `rawUrl` under the rules above. Throws SafeFetchError. */
export async function safeFetch(rawUrl: string, options: SafeFetchOptions): Promise<SafeFetchResult> {
  const deadline = Date.now() + options.timeoutMs;
  let url = checkUrl(rawUrl, options.allowAddresses);
  for (let hop = 0; ; hop += 1) {
    const result = await once(url, options, deadline);
    if (result.body) return { body: result.body, contentType: result.headers['content-type'], finalUrl: url.toString() };
    if (hop >= options.maxRedirects) throw new SafeFetchError('too_many_redirects', `More than ${options.maxRedirects} redirects.`, false);
    let next: string;
    try {
      next = new URL(String(result.headers.location), url).toString();
    } catch {
      throw new SafeFetchError('invalid_url', 'A redirect pointed at an invalid URL.', false);
    }
    url = checkUrl(next, options.allowAddresses);
  }
}
