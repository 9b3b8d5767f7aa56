import { isIP } from 'node:net';

import { MemoryError } from '../../core/errors';

/** Where the server listens when --host is not given: this machine only. */
export const DEFAULT_HOST = '127.0.0.1';

/** The names a loopback request may give in its Host header (URL hostnames: IPv6 in brackets). */
const LOOPBACK_NAMES: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

/** Where to listen, and what that allows. */
export interface BindPlan {
  host: string;
  /** Only this machine can connect. */
  loopback: boolean;
  /** Every interface (0.0.0.0, ::): clients may name the machine anything, so the Host header cannot be checked. */
  wildcard: boolean;
}

/** 127.0.0.0/8, ::1 (also as an IPv4-mapped address) and the name localhost. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (isIP(bare) === 6) return bare === '::1' || /^::ffff:127\./.test(bare) || /^(0+:){7}0*1$/.test(bare);
  return false;
}

function isWildcard(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  return bare === '0.0.0.0' || (isIP(bare) === 6 && /^[0:]+$/.test(bare));
}

/**
 * Where to listen. Anything but a loopback address is refused unless
 * `allowRemote` says the user means it: the store holds what agents
 * remembered about the workspace, and plain HTTP crosses the network
 * unencrypted. A host name other than localhost counts as remote, as
 * whatever it resolves to may change.
 */
export function planBind(host: string | undefined, allowRemote: boolean): BindPlan {
  const chosen = (host ?? DEFAULT_HOST).trim().replace(/^\[(.*)\]$/, '$1');
  if (chosen === '') throw new MemoryError('INVALID_INPUT', '--host must name an address.');
  const loopback = isLoopback(chosen);
  if (!loopback && !allowRemote) {
    throw new MemoryError(
      'INVALID_INPUT',
      `Refusing to listen on ${chosen}, which other machines can reach: add --allow-remote if you mean it (the token is then the only guard, and plain HTTP is not encrypted).`,
    );
  }
  return { host: chosen, loopback, wildcard: isWildcard(chosen) };
}

/** The bound address as a URL hostname: IPv6 in brackets. */
export function urlHostname(host: string): string {
  return isIP(host) === 6 ? `[${host}]` : host;
}

/**
 * Whether a Host header names this server: against DNS rebinding, where a
 * page from another site points its own name at 127.0.0.1 and its script
 * then talks to the server as if same-origin. On loopback only the loopback
 * names pass; on a specific address, those and the address; on a wildcard
 * bind, any name (the token is the guard). The port must be the server's.
 */
export function hostAllowed(header: string | undefined, plan: BindPlan, port: number): boolean {
  if (!header) return false;
  let url: URL;
  try {
    url = new URL(`http://${header}`);
  } catch {
    return false;
  }
  // Anything the URL parser rewrote or dropped (a path, credentials, `127.1`) is no plain host:port.
  if (url.host !== header.toLowerCase()) return false;
  if (url.port !== (port === 80 ? '' : String(port))) return false;
  if (plan.wildcard) return true;
  return LOOPBACK_NAMES.includes(url.hostname) || url.hostname === urlHostname(plan.host).toLowerCase();
}
