import { isIPv6 } from 'node:net';

/**
 * One client, as the service's per-address limits count it (the rate limit without a token, the RTMP ingest's
 * connections before a publish): an IPv4-mapped IPv6 address is its IPv4 address, and any other IPv6 address counts
 * by its /64, since one host is commonly given a whole /64 and could otherwise take a new address for each try.
 */
export function clientAddress(ip: string): string {
  const address = ip.replace(/%.*$/, '');
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address)?.[1];
  if (mapped) return mapped;
  if (!isIPv6(address)) return address;
  const [head = '', tail] = address.split('::');
  const groups = (part: string) => (part ? part.split(':').flatMap((g) => (g.includes('.') ? ['0', '0'] : [g])) : []);
  const known = [...groups(head), ...(tail === undefined ? [] : groups(tail))];
  const all =
    tail === undefined ? known : [...groups(head), ...Array<string>(8 - known.length).fill('0'), ...groups(tail)];
  return `${all
    .slice(0, 4)
    .map((g) => Number.parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}
