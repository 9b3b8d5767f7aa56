import type { MiddlewareHandler } from 'hono';

import { type BindPlan, hostAllowed } from './bind';
import { errorResponse } from './errors';
import { TOKEN_FILE, type TokenCheck } from './token';

/** Browsers' own word on where a request comes from: only these two are not another site. */
const SAME_SITE_FETCHES = new Set(['same-origin', 'none']);

/**
 * Refuses what a browser page of another site could send: a Host header
 * that is not this server's (DNS rebinding), an Origin other than the
 * server's own, or a Sec-Fetch-Site that says cross-site. No CORS headers
 * are ever sent, so a browser will not hand any answer to such a page
 * either; this keeps the request from running at all.
 */
export function originGuard(plan: BindPlan, port: number): MiddlewareHandler {
  return async (c, next) => {
    const host = c.req.header('host');
    if (!hostAllowed(host, plan, port)) {
      return errorResponse('FORBIDDEN', 'The Host header does not name this server.');
    }
    const origin = c.req.header('origin');
    if (origin !== undefined && origin.toLowerCase() !== `http://${host?.toLowerCase()}`) {
      return errorResponse('FORBIDDEN', 'Requests from other origins (browser pages of other sites) are refused.');
    }
    const site = c.req.header('sec-fetch-site');
    if (site !== undefined && !SAME_SITE_FETCHES.has(site.toLowerCase())) {
      return errorResponse('FORBIDDEN', 'Requests from other sites are refused.');
    }
    await next();
  };
}

const BEARER = /^Bearer +(\S+) *$/i;

/** Requires `Authorization: Bearer <token>` (RFC 6750); the token is compared in constant time. */
export function bearerGuard(check: TokenCheck): MiddlewareHandler {
  return async (c, next) => {
    const header = c.req.header('authorization');
    if (header === undefined) {
      return errorResponse('UNAUTHORIZED', 'Send the token as `Authorization: Bearer <token>`.', {
        'WWW-Authenticate': 'Bearer realm="workspace-memory"',
      });
    }
    const token = BEARER.exec(header)?.[1];
    if (token === undefined || !check.matches(token)) {
      return errorResponse(
        'UNAUTHORIZED',
        `The token is wrong; it is in the store folder, in the file ${TOKEN_FILE}.`,
        {
          'WWW-Authenticate': 'Bearer realm="workspace-memory", error="invalid_token"',
        },
      );
    }
    await next();
  };
}

/**
 * Once the server shuts down, every answer closes its connection: a
 * kept-alive one would otherwise hold the server's close until the client's
 * idle timeout. Requests that reached the server before are all answered.
 */
export function drainGuard(closing: () => boolean): MiddlewareHandler {
  return async (c, next) => {
    await next();
    if (closing()) c.res.headers.set('Connection', 'close');
  };
}
