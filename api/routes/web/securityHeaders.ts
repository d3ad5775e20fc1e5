/**
 * The pages run only this origin's scripts and styles: no inline script or style, no eval, no plugins,
 * no framing. Trusted Types are required and no policy may be created, which forbids string-to-HTML sinks
 * (innerHTML) outright; the console builds its DOM with createElement and textContent.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join('; ');

export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  // Not no-referrer: with it, browsers send `Origin: null` on same-origin POSTs and the CSRF check refuses them.
  'Referrer-Policy': 'same-origin',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=()',
};

export const ASSET_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'Cross-Origin-Resource-Policy': 'same-origin',
  // Applies only when an asset is opened as a document (an SVG, say): nothing in it may run.
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
};
