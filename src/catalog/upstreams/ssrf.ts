/**
 * The SSRF guard's address test: is a URL host a literal address (or a name)
 * an upstream may never point at? Used for the configured URL and for every
 * place an upstream could send the client elsewhere (redirect Locations,
 * HTTP+SSE endpoint events).
 *
 * The host is first normalised by the WHATWG URL parser, which turns the
 * decimal, octal and hex IPv4 spellings (`2130706433`, `0x7f.1`, `0177.0.0.1`)
 * into dotted quads and compresses IPv6. Then trailing dots are dropped
 * (`localhost.` is `localhost`), and every IPv6 form that embeds an IPv4
 * address (mapped, compatible, translated, NAT64, 6to4) is judged by the
 * IPv4 address it carries. Workers cannot resolve DNS, so names other than
 * localhost are left to the platform, whose fetch does not reach private
 * networks.
 */

/** IPv4 ranges no upstream may use: this network, RFC 1918, CGNAT, loopback, link-local, IETF, benchmarking, multicast, reserved. */
function privateV4(a: number, b: number, c: number): boolean {
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 100 && b >= 64 && b <= 127) ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 192 && b === 0 && c === 0) ||
    (a === 198 && (b === 18 || b === 19)) ||
    a >= 224
  );
}

/** The 8 groups of an IPv6 literal (as the URL parser prints it, possibly with a dotted tail), or null. */
function v6Groups(h: string): number[] | null {
  let s = h;
  const dotted = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(s);
  if (dotted) {
    const q = dotted.slice(2).map(Number);
    if (q.some((n) => n > 255)) return null;
    s = `${dotted[1]}${((q[0]! << 8) | q[1]!).toString(16)}:${((q[2]! << 8) | q[3]!).toString(16)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const part = (x: string) => (x ? x.split(':').map((g) => parseInt(g, 16)) : []);
  const head = part(halves[0]!);
  const tail = halves.length === 2 ? part(halves[1]!) : [];
  const fill = halves.length === 2 ? 8 - head.length - tail.length : 0;
  const groups = [...head, ...new Array<number>(Math.max(0, fill)).fill(0), ...tail];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

function privateV6(g: number[]): boolean {
  const v4 = (hi: number, lo: number) => privateV4(hi >> 8, hi & 0xff, lo >> 8);
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 8)) return true; // ::
  if (zeros(0, 7) && g[7] === 1) return true; // ::1
  if (zeros(0, 5) && (g[5] === 0 || g[5] === 0xffff)) return v4(g[6]!, g[7]!) || (g[5] === 0 && g[6] === 0); // compatible, mapped
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return v4(g[6]!, g[7]!); // translated (SIIT)
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return v4(g[6]!, g[7]!); // NAT64
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return true; // local-use NAT64: any v4 behind it
  if (g[0] === 0x2002) return v4(g[1]!, g[2]!); // 6to4
  if (g[0] === 0x2001 && g[1] === 0) return true; // Teredo: the v4 inside is obfuscated; never an upstream
  const top = g[0]!;
  return (
    (top & 0xfe00) === 0xfc00 || (top & 0xffc0) === 0xfe80 || (top & 0xffc0) === 0xfec0 || (top & 0xff00) === 0xff00
  ); // ULA, link-local, site-local, multicast
}

/** The host as the URL parser normalises it, lowercase, without brackets or trailing dots. */
export function normalHost(hostname: string): string {
  let h = hostname.toLowerCase();
  try {
    h = new URL(`http://${h.includes(':') && !h.startsWith('[') ? `[${h}]` : h}/`).hostname;
  } catch {
    // Not a host the URL parser takes: judged as written.
  }
  return h.replace(/^\[|\]$/g, '').replace(/\.+$/, '');
}

/** True for hosts an upstream may never point at: localhost names and private, loopback, link-local, metadata and other special-use literals in any spelling. */
export function isPrivateHost(hostname: string): boolean {
  const h = normalHost(hostname);
  if (h === '' || h === 'localhost' || h.endsWith('.localhost')) return true;
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(h);
  if (v4) return privateV4(Number(v4[1]), Number(v4[2]), Number(v4[3]));
  if (h.includes(':')) {
    const g = v6Groups(h);
    return g === null || privateV6(g);
  }
  return false;
}

/** Loopback (the only private target allowed, and only with UPSTREAM_ALLOW_HTTP_LOOPBACK in development). */
export function isLoopbackHost(hostname: string): boolean {
  const h = normalHost(hostname);
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/**
 * The guard's verdict on a configured URL (an upstream's, an oauth tokenUrl): its problems, none
 * when it may be called. https only; http and private addresses only to loopback, and only with
 * `allowHttpLoopback` (UPSTREAM_ALLOW_HTTP_LOOPBACK, local development).
 */
export function guardUrl(url: URL, at: string, allowHttpLoopback: boolean): string[] {
  const problems: string[] = [];
  const loopback = isLoopbackHost(url.hostname);
  if (url.protocol === 'http:' && !(loopback && allowHttpLoopback))
    problems.push(`${at}: must be https (http only to loopback in development)`);
  else if (url.protocol !== 'https:' && url.protocol !== 'http:') problems.push(`${at}: must be https`);
  if (isPrivateHost(url.hostname) && !(loopback && allowHttpLoopback))
    problems.push(`${at}: private, loopback and link-local addresses are not allowed`);
  if (url.username || url.password) problems.push(`${at}: credentials belong in headers, not the URL`);
  return problems;
}
