import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import ipaddr from 'ipaddr.js';
import { ToolError } from '../registry.ts';

/** Resolves a host name to its IP addresses (injectable so tests can pose as any DNS). */
export type Resolver = (hostname: string) => Promise<string[]>;

export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses.map((a) => a.address)),
    ),
  );

/** A URL that passed the guard, with the addresses it may connect to. */
export interface CheckedUrl {
  url: URL;
  /** `host:port` is configured as trusted (e.g. the local supplier sites), so private addresses are fine. */
  allowlisted: boolean;
  /** What the host resolved to when checked: connect to these, never to a second DNS answer. */
  addresses: string[];
}

export class BlockedUrlError extends ToolError {
  constructor(message: string) {
    super(
      message,
      '只能抓取公网 http(s) 地址或已配置的白名单站点 / only public http(s) addresses or allowlisted sites can be fetched',
    );
    this.name = 'BlockedUrlError';
  }
}

const defaultPort = (url: URL) => url.port || (url.protocol === 'https:' ? '443' : '80');
const bareHost = (host: string) => host.replace(/^\[|\]$/g, '').toLowerCase();

/** Only ordinary public unicast addresses; IPv4-mapped IPv6 is judged as the IPv4 it carries. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'unicast';
}

/**
 * The SSRF guard every request (and every redirect hop, and every browser sub-request) goes through:
 * http(s) only, and the host must resolve to public addresses unless its `host:port` is allowlisted.
 */
export class UrlGuard {
  private readonly allowlist: Set<string>;
  private readonly allowlistedHosts: Set<string>;

  constructor(
    allowlist: readonly string[] = [],
    private readonly resolve: Resolver = systemResolver,
  ) {
    this.allowlist = new Set(allowlist.map(normaliseAllowEntry));
    this.allowlistedHosts = new Set([...this.allowlist].map((entry) => entry.slice(0, entry.lastIndexOf(':'))));
  }

  isAllowlisted(url: URL): boolean {
    return this.allowlist.has(`${bareHost(url.hostname)}:${defaultPort(url)}`);
  }

  /** Throws `BlockedUrlError` with the reason, in Chinese and English. */
  async check(raw: string | URL): Promise<CheckedUrl> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new BlockedUrlError(`无效的网址 / invalid URL: ${String(raw).slice(0, 200)}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new BlockedUrlError(
        `只允许 http/https 网址，拒绝 ${url.protocol} / only http and https URLs are allowed, not ${url.protocol}`,
      );
    if (url.username || url.password)
      throw new BlockedUrlError('网址中不能包含用户名或密码 / URLs with credentials are refused');
    const host = bareHost(url.hostname);
    let addresses: string[];
    if (ipaddr.isValid(host)) addresses = [host];
    else {
      try {
        addresses = await this.resolve(host);
      } catch (error) {
        throw new BlockedUrlError(`无法解析域名 ${host} / cannot resolve ${host}: ${(error as Error).message}`);
      }
    }
    if (addresses.length === 0) throw new BlockedUrlError(`域名 ${host} 没有地址 / ${host} has no addresses`);
    if (this.isAllowlisted(url)) return { url, allowlisted: true, addresses };
    const refused = addresses.find((address) => !isPublicAddress(address));
    if (refused !== undefined)
      throw new BlockedUrlError(
        `拒绝访问内网/本机/保留地址：${host} → ${refused}（${describeRange(refused)}）/ refused: ${host} resolves to a non-public address ${refused} (${describeRange(refused)})`,
      );
    return { url, allowlisted: false, addresses };
  }

  /**
   * `net.connect` lookup that re-checks the addresses at connect time, so a DNS answer that changes between
   * the check and the connection (rebinding) cannot reach a private address.
   */
  readonly connectLookup = (
    hostname: string,
    options: { all?: boolean; family?: number | string },
    callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    const host = bareHost(hostname);
    this.resolve(host).then(
      (addresses) => {
        const usable = this.allowlistedHosts.has(host) ? addresses : addresses.filter(isPublicAddress);
        if (usable.length === 0) {
          callback(
            new BlockedUrlError(`拒绝连接非公网地址 / refused to connect: ${host} → ${addresses.join(', ')}`),
            '',
            4,
          );
          return;
        }
        const entries = usable.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
        if (options.all) callback(null, entries);
        else callback(null, entries[0].address, entries[0].family);
      },
      (error: Error) => callback(error, '', 4),
    );
  };
}

function describeRange(address: string): string {
  if (!ipaddr.isValid(address)) return 'invalid';
  const range = ipaddr.process(address).range();
  const names: Record<string, string> = {
    loopback: '本机回环 / loopback',
    private: '内网 / private',
    linkLocal: '链路本地（含云元数据 169.254.169.254）/ link-local incl. cloud metadata',
    unspecified: '未指定 / unspecified',
    uniqueLocal: '内网 / unique local',
    carrierGradeNat: '运营商 NAT / carrier-grade NAT',
  };
  return names[range] ?? range;
}

/** `http://127.0.0.1:8090/`, `127.0.0.1:8090` and `[::1]:8090` become `host:port`. */
function normaliseAllowEntry(entry: string): string {
  const url = new URL(entry.includes('://') ? entry : `http://${entry}`);
  return `${bareHost(url.hostname)}:${defaultPort(url)}`;
}
