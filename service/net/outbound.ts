import { lookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP } from 'node:net';
import { MAX_REDIRECTS } from '../../src/api/limits.js';

/**
 * Every request the service makes to an address a stranger chose (webhook receivers, URL imports) goes
 * through here, so that nobody can point the service at its own machine or network (SSRF).
 *
 *  - Refused: loopback, private, shared (CGNAT), link-local, unique-local, multicast, unspecified, reserved and
 *    documentation ranges, IPv4-mapped, -compatible and -translated IPv6, 6to4 and Teredo (they embed an IPv4
 *    address), and the names `localhost` and `*.localhost`, in every spelling: the WHATWG URL parser turns
 *    `2130706433`, `0x7f.1`, `0177.0.0.1` and `127.1` into `127.0.0.1` before the check.
 *  - A name is resolved, and refused if any of its addresses is; the connection then goes to the address that
 *    was checked, so a second answer of the DNS cannot send it elsewhere (DNS rebinding). The refusal says that
 *    the name "resolves to an internal address" and never which: the service's view of the DNS is not a stranger's.
 *  - Ports 80 and 443 only (the port is the URL's, or its scheme's): nobody makes the service talk to a mail,
 *    database or admin port, even of a public host. `--allow-any-port` lifts this rule alone.
 *  - Redirects: a webhook delivery follows none (its status is what counts); an import (`getFollowing`) follows
 *    up to 5, each target checked as the first was, so a public URL cannot redirect into the network. A
 *    redirect's body is never read: its socket is closed at once.
 *  - `--allow-private-network` (local development and the tests, whose receivers listen on 127.0.0.1) lifts the
 *    address and port rules; the rest stays.
 */
const RANGES: [network: string, prefix: number, what: string][] = [
  ['0.0.0.0', 8, 'an unspecified ("this network") address'],
  ['10.0.0.0', 8, 'a private address'],
  ['100.64.0.0', 10, 'a shared (carrier-grade NAT) address'],
  ['127.0.0.0', 8, 'a loopback address'],
  ['169.254.0.0', 16, 'a link-local address (cloud metadata lives there)'],
  ['172.16.0.0', 12, 'a private address'],
  ['192.0.0.0', 24, 'an IETF protocol address'],
  ['192.0.2.0', 24, 'a documentation address'],
  ['192.88.99.0', 24, 'a 6to4 relay address'],
  ['192.168.0.0', 16, 'a private address'],
  ['198.18.0.0', 15, 'a benchmarking address'],
  ['198.51.100.0', 24, 'a documentation address'],
  ['203.0.113.0', 24, 'a documentation address'],
  ['224.0.0.0', 4, 'a multicast address'],
  ['240.0.0.0', 4, 'a reserved address'],
  ['::', 96, 'an unspecified, loopback or IPv4-compatible address'],
  ['::ffff:0:0', 96, 'an IPv4-mapped address'],
  ['64:ff9b::', 96, 'an IPv4-translated (NAT64) address'],
  ['64:ff9b:1::', 48, 'a local IPv4-translated address'],
  ['100::', 64, 'a discard address'],
  ['2001::', 32, 'a Teredo address (it embeds an IPv4 address)'],
  ['2001:db8::', 32, 'a documentation address'],
  ['2002::', 16, 'a 6to4 address (it embeds an IPv4 address)'],
  ['fc00::', 7, 'a unique-local (private) address'],
  ['fe80::', 10, 'a link-local address'],
  ['fec0::', 10, 'a site-local address'],
  ['ff00::', 8, 'a multicast address'],
];

const LISTS = RANGES.map(([network, prefix, what]) => {
  const list = new BlockList();
  list.addSubnet(network, prefix, isIP(network) === 6 ? 'ipv6' : 'ipv4');
  return { list, what, family: isIP(network) === 6 ? ('ipv6' as const) : ('ipv4' as const) };
});

/** Why `address` (an IP literal) is refused, or undefined when it is a public address. */
export function refusedAddress(address: string): string | undefined {
  const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
  return LISTS.find((l) => l.family === family && l.list.check(address, family))?.what;
}

/** A URL the service was asked to reach, refused: the message says which and why, for a 400 or a delivery's log. */
export class RefusedUrl extends Error {}

/** No answer's head came within the time given to getFollowing. */
export class HeaderTimeout extends Error {}

/** The ports the service connects to, unless `--allow-any-port` or `--allow-private-network` says otherwise. */
export const WEB_PORTS = [80, 443];

export interface CheckedTarget {
  url: URL;
  /** The address to connect to: the one that was checked. */
  address: string;
  family: 4 | 6;
}

export interface OutboundPolicy {
  /** `--allow-private-network`: any address and port, for local development and tests. */
  allowPrivateNetwork: boolean;
  /** `--allow-any-port`: any port, not only 80 and 443 (receivers of integrators that listen elsewhere). */
  allowAnyPort?: boolean;
  /** Resolves a host name to all its addresses (the system resolver; tests give their own). */
  resolve?: (host: string) => Promise<{ address: string; family: number }[]>;
  /**
   * Tests only: where a checked address is dialled. A unit test can so check a public address and reach its
   * own server on 127.0.0.1 (tests talk to nothing else); the service never sets it.
   */
  dial?: (target: CheckedTarget) => { address: string; family: 4 | 6; port: number };
}

/** The host as an address or a name: no IPv6 brackets, no final dot. */
const bareHost = (url: URL) => url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');

const systemResolve = (host: string) => lookup(host, { all: true, verbatim: true });

/**
 * What can be said of `raw` without the DNS: an absolute http(s) URL with no credentials, whose host is not
 * `localhost` nor, unless the policy allows, an internal IP literal, on port 80 or 443. A request refuses it at
 * once (400).
 */
export function checkUrlForm(raw: unknown, policy: OutboundPolicy): URL {
  let url: URL;
  try {
    url = new URL(String(raw));
  } catch {
    throw new RefusedUrl(`${JSON.stringify(raw)} is not an absolute URL.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new RefusedUrl(`${url.protocol} is not http or https.`);
  if (url.username || url.password) throw new RefusedUrl('a URL with a user name or password is not accepted.');
  const host = bareHost(url);
  const literal = isIP(host);
  if (!policy.allowPrivateNetwork && (host === 'localhost' || host.endsWith('.localhost'))) {
    throw new RefusedUrl(`${url.host} names this machine (loopback).`);
  }
  const why = literal && !policy.allowPrivateNetwork ? refusedAddress(host) : undefined;
  if (why) throw new RefusedUrl(`${url.host} is ${why}; the service does not connect to internal addresses.`);
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  if (!policy.allowPrivateNetwork && !policy.allowAnyPort && !WEB_PORTS.includes(port))
    throw new RefusedUrl(`port ${port} is refused; the service connects to ports 80 and 443 only.`);
  return url;
}

/** Parses and checks `raw` (http or https, no credentials), resolves its host and checks every address. */
export async function checkUrl(raw: unknown, policy: OutboundPolicy): Promise<CheckedTarget> {
  const url = checkUrlForm(raw, policy);
  const host = bareHost(url);
  const literal = isIP(host);
  let addresses: { address: string; family: number }[];
  if (literal) addresses = [{ address: host, family: literal }];
  else {
    try {
      addresses = await (policy.resolve ?? systemResolve)(host);
    } catch (err) {
      throw new RefusedUrl(
        `${url.host} could not be resolved (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}).`,
      );
    }
  }
  // A literal was checked by checkUrlForm; a name's addresses are checked here, and not named.
  if (!policy.allowPrivateNetwork && addresses.some(({ address }) => refusedAddress(address)))
    throw new RefusedUrl(
      `${url.host} resolves to an internal address; the service does not connect to internal addresses.`,
    );
  const first = addresses[0];
  if (!first) throw new RefusedUrl(`${url.host} has no address.`);
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}

/**
 * POSTs `body` to a checked target, connecting to its checked address (the Host header and TLS name stay the
 * URL's). Resolves with the status; the answer's body is read and dropped. No redirect is followed.
 */
export function post(
  target: CheckedTarget,
  body: string,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<number> {
  const request = target.url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(
      target.url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        signal,
        lookup: pinned(target.address, target.family),
      },
      (res: IncomingMessage) => {
        res.resume();
        res.once('end', () => resolve(res.statusCode ?? 0));
        res.once('error', reject);
      },
    );
    req.once('error', reject);
    req.end(body);
  });
}

/** A lookup that answers the checked address, whatever the DNS says now (no rebinding between check and connect). */
function pinned(address: string, family: 4 | 6) {
  return (_host: string, options: unknown, callback: unknown) => {
    if ((options as { all?: boolean }).all)
      (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
    else (callback as (e: null, a: string, f: number) => void)(null, address, family);
  };
}

/**
 * GETs a checked target at its checked address (or where a test's `dial` says); resolves with the answer's head,
 * or fails with HeaderTimeout when it takes longer than `headerTimeoutMs`.
 */
function get(
  target: CheckedTarget,
  policy: OutboundPolicy,
  signal: AbortSignal,
  headerTimeoutMs: number,
): Promise<IncomingMessage> {
  const request = target.url.protocol === 'https:' ? httpsRequest : httpRequest;
  const dialled = policy.dial?.(target);
  return new Promise((resolve, reject) => {
    const req = request(
      target.url,
      {
        method: 'GET',
        headers: { 'user-agent': 'video-service-import/1', accept: '*/*' },
        signal,
        ...(dialled ? { port: dialled.port } : {}),
        lookup: pinned(dialled?.address ?? target.address, dialled?.family ?? target.family),
      },
      (res) => (clearTimeout(timer), resolve(res)),
    );
    // A deadline, not an idle timer: a server that sends its head a byte at a time cannot hold the import.
    const timer = setTimeout(
      () => req.destroy(new HeaderTimeout(`the URL sent no response headers within ${headerTimeoutMs / 1000} s`)),
      headerTimeoutMs,
    );
    req.once('error', (err) => (clearTimeout(timer), reject(err)));
    req.end();
  });
}

/**
 * GETs `raw`, following up to MAX_REDIRECTS redirects; every URL on the way is checked as the first one was (checkUrl),
 * so a public address cannot send the service into its own network. Each hop's answer must begin within
 * `headerTimeoutMs`. Resolves with the last answer (not a redirect), whose body the caller reads or destroys.
 */
export async function getFollowing(
  raw: string,
  policy: OutboundPolicy,
  signal: AbortSignal,
  headerTimeoutMs: number,
): Promise<{ url: URL; res: IncomingMessage }> {
  let url = raw;
  for (let hop = 0; ; hop++) {
    let target: CheckedTarget;
    try {
      target = await checkUrl(url, policy);
    } catch (err) {
      if (hop === 0 || !(err instanceof RefusedUrl)) throw err;
      throw new RefusedUrl(`it redirected to ${url}, which is refused: ${err.message}`);
    }
    const res = await get(target, policy, signal, headerTimeoutMs);
    const status = res.statusCode ?? 0;
    const location = res.headers.location;
    if (status < 300 || status >= 400 || !location) return { url: target.url, res };
    res.destroy(); // a redirect's body is not read: a server could send one for ever
    if (hop === MAX_REDIRECTS) throw new RefusedUrl(`it redirected more than ${MAX_REDIRECTS} times.`);
    url = new URL(location, target.url).href;
  }
}
