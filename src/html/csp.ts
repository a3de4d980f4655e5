// The Content-Security-Policy of the server-rendered pages (checkout, dashboard): their own scripts,
// styles and images (and data: images: logos, QR codes) only, no inline script or style, forms
// posted to the page's own origin (plus, for the checkout, the shop's), never framed.

/** `formAction`: another origin forms may go to; `upgrade`: "; upgrade-insecure-requests" in production. */
export const pageCsp = (formAction = '', upgrade = '') =>
  `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'${formAction ? ` ${formAction}` : ''}; frame-ancestors 'none'; base-uri 'none'${upgrade}`;
