import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import ipaddr from 'ipaddr.js';

export const isLoopbackAddress = (address: string) =>
  ipaddr.isValid(address) && ipaddr.process(address).range() === 'loopback';

/** `localhost`, `127.0.0.1:3000`, `[::1]:3000`… — a Host header that names this machine. */
export function isLoopbackHost(host: string | undefined): boolean {
  if (!host) return false;
  const bracketed = /^\[([^\]]+)\]/.exec(host);
  // `[v6]:port`, a bare v6 address (several colons, no port), or `name:port`.
  const name = (bracketed ? bracketed[1] : host.split(':').length > 2 ? host : host.replace(/:\d*$/, '')).toLowerCase();
  return name === 'localhost' || name.endsWith('.localhost') || isLoopbackAddress(name);
}

/**
 * Headers a reverse proxy, load balancer or CDN adds for the client it forwards: any of them means the socket's
 * peer is a proxy, not the person, so the request is not "on this machine".
 */
const PROXY_HEADERS = [
  'forwarded',
  'forwarded-for',
  'x-forwarded',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-forwarded-port',
  'x-forwarded-server',
  'x-original-forwarded-for',
  'x-real-ip',
  'x-client-ip',
  'x-cluster-client-ip',
  'client-ip',
  'true-client-ip',
  'cf-connecting-ip',
  'fastly-client-ip',
  'x-appengine-user-ip',
  'x-envoy-external-address',
  'x-proxyuser-ip',
  'via',
];

/**
 * Whether a request comes from a browser on this machine: its socket peer is a loopback address, its `Host` names
 * loopback (against DNS rebinding), and it carries none of the headers a proxy adds.
 */
export function isLocalClient(c: Context): boolean {
  if (PROXY_HEADERS.some((name) => c.req.header(name) !== undefined)) return false;
  if (!isLoopbackHost(c.req.header('host'))) return false;
  let address: string | undefined;
  try {
    address = getConnInfo(c).remote.address;
  } catch {
    return false; // not served over a socket: no peer to trust
  }
  return address !== undefined && isLoopbackAddress(address);
}
