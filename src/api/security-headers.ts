// Security headers. They are the same for every API answer, so helmet computes them once at start
// and each reply gets the finished set. (@fastify/helmet rebuilds helmet's middleware on every
// request: 5.3% of the create path's CPU in the profile.) Pages with their own policy (the
// checkout) override single headers.
import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet, { type HelmetOptions } from 'helmet';
import type { Mode } from '../config.ts';

export function computeHeaders(options: HelmetOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  const res = {
    setHeader: (name: string, value: string | number | string[]) => {
      headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
    },
    removeHeader: (name: string) => {
      delete headers[name];
    },
  };
  helmet(options)({} as IncomingMessage, res as unknown as ServerResponse, () => {});
  return headers;
}

export function apiSecurityHeaders(mode: Mode): Record<string, string> {
  return computeHeaders({
    // API answers are JSON: nothing in them may load or run anything. (Pages set their own
    // policy: the checkout's and the docs' allow their own stylesheet, and no inline style.)
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'none'"],
        styleSrc: ["'none'"],
        imgSrc: ["'self'", 'data:'],
        frameAncestors: ["'none'"],
        upgradeInsecureRequests: mode === 'production' ? [] : null,
      },
    },
    xFrameOptions: { action: 'deny' },
    strictTransportSecurity: mode === 'production' ? { maxAge: 31_536_000, includeSubDomains: true } : false,
  });
}
