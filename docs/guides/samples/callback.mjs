// A callback endpoint for Karibche in Node, with nothing but Node itself (18 or later).
// It checks both signatures every callback carries and answers 204; anything else gets 400.
//
//   KARIBCHE_CALLBACK_SECRET='whsec_…' PORT=3000 node callback.mjs
//
// Use either check in your own code; both always arrive. The same checks in PHP and Python are in
// callback.php and callback.py beside this file.
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';

const SECRET = process.env.KARIBCHE_CALLBACK_SECRET; // the callbackSecret of your credentials
const TOLERANCE_SECONDS = 300; // refuse a signature older (or newer) than five minutes

const same = (a, b) => a.length === b.length && timingSafeEqual(a, b);
const recent = (t) => Number.isInteger(t) && Math.abs(Date.now() / 1000 - t) <= TOLERANCE_SECONDS;

/**
 * X-Callback-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">, keyed with the
 * secret as text. During a secret rotation it carries two v1 values: either may match.
 */
export function verifyKaribcheSignature(secret, header, rawBody) {
  const parts = String(header ?? '').split(',').map((part) => part.split('='));
  const t = Number(parts.find(([key]) => key === 't')?.[1]);
  if (!recent(t)) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${rawBody}`).digest();
  return parts.filter(([key]) => key === 'v1').some(([, hex]) => same(Buffer.from(hex ?? '', 'hex'), expected));
}

/**
 * Standard Webhooks: webhook-signature: v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<raw body>">,
 * keyed with the base64-decoded part of the secret after "whsec_". Space-separated during a rotation.
 */
export function verifyStandardWebhook(secret, headers, rawBody) {
  const id = headers['webhook-id'];
  const t = Number(headers['webhook-timestamp']);
  if (!id || !recent(t)) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${t}.${rawBody}`).digest();
  return String(headers['webhook-signature'] ?? '')
    .split(' ')
    .map((signature) => signature.split(','))
    .some(([version, base64]) => version === 'v1' && same(Buffer.from(base64 ?? '', 'base64'), expected));
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    // Verify the body exactly as it arrived, before any JSON parsing.
    const rawBody = Buffer.concat(chunks).toString('utf8');
    const karibche = verifyKaribcheSignature(SECRET, req.headers['x-callback-signature'], rawBody);
    const standard = verifyStandardWebhook(SECRET, req.headers, rawBody);
    if (!karibche || !standard) {
      console.log(`refused a callback: X-Callback-Signature ${karibche ? 'valid' : 'invalid'}, webhook-signature ${standard ? 'valid' : 'invalid'}`);
      res.writeHead(400).end();
      return;
    }
    const { PaymentId } = JSON.parse(rawBody);
    // Delivery is at least once: skip an X-Callback-Id you have already processed (keep them in
    // your database), then read the payment with GET /v1/gateway/payments/{PaymentId}.
    console.log(`verified callback ${req.headers['x-callback-id']} (sequence ${req.headers['x-callback-sequence']}) for payment ${PaymentId}`);
    res.writeHead(204).end();
  });
});

if (!SECRET) {
  console.error('Set KARIBCHE_CALLBACK_SECRET to your callbackSecret.');
  process.exit(1);
}
const port = Number(process.env.PORT ?? 3000);
server.listen(port, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${port}/`));
