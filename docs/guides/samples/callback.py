"""A callback endpoint for Karibche in Python 3, with nothing but the standard library.

It checks both signatures every callback carries and answers 204; anything else gets 400.

    KARIBCHE_CALLBACK_SECRET='whsec_...' PORT=3000 python3 callback.py

Use either check in your own code (Flask, Django, FastAPI: pass them the raw request body);
both always arrive. The same checks in Node and PHP are in callback.mjs and callback.php.
"""
import base64
import binascii
import hashlib
import hmac
import json
import os
import sys
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

SECRET = os.environ.get("KARIBCHE_CALLBACK_SECRET", "")  # the callbackSecret of your credentials
TOLERANCE_SECONDS = 300  # refuse a signature older (or newer) than five minutes


def _recent(t):
    return abs(time.time() - t) <= TOLERANCE_SECONDS


def verify_karibche_signature(secret, header, raw_body):
    """X-Callback-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">, keyed with
    the secret as text. During a secret rotation it carries two v1 values: either may match."""
    parts = [part.split("=", 1) for part in (header or "").split(",")]
    stamps = [p[1] for p in parts if len(p) == 2 and p[0] == "t"]
    if not stamps or not stamps[0].isdigit() or not _recent(int(stamps[0])):
        return False
    expected = hmac.new(secret.encode(), stamps[0].encode() + b"." + raw_body, hashlib.sha256).hexdigest()
    return any(hmac.compare_digest(p[1], expected) for p in parts if len(p) == 2 and p[0] == "v1")


def verify_standard_webhook(secret, headers, raw_body):
    """Standard Webhooks: webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<raw body>">,
    keyed with the base64-decoded part of the secret after "whsec_". Space-separated during a rotation."""
    msg_id = headers.get("webhook-id") or ""
    stamp = headers.get("webhook-timestamp") or ""
    if not msg_id or not stamp.isdigit() or not _recent(int(stamp)):
        return False
    try:
        key = base64.b64decode(secret.removeprefix("whsec_"))
    except binascii.Error:
        return False
    digest = hmac.new(key, f"{msg_id}.{stamp}.".encode() + raw_body, hashlib.sha256).digest()
    expected = base64.b64encode(digest).decode()
    signatures = (headers.get("webhook-signature") or "").split(" ")
    return any(s.startswith("v1,") and hmac.compare_digest(s[3:], expected) for s in signatures)


class CallbackHandler(BaseHTTPRequestHandler):
    def do_POST(self):
        # Verify the body exactly as it arrived, before any JSON parsing.
        raw_body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        karibche = verify_karibche_signature(SECRET, self.headers.get("X-Callback-Signature"), raw_body)
        standard = verify_standard_webhook(SECRET, self.headers, raw_body)
        if not (karibche and standard):
            print(f"refused a callback: X-Callback-Signature {'valid' if karibche else 'invalid'}, "
                  f"webhook-signature {'valid' if standard else 'invalid'}", flush=True)
            self.send_response(400)
            self.end_headers()
            return
        payment_id = json.loads(raw_body)["PaymentId"]
        # Delivery is at least once: skip an X-Callback-Id you have already processed (keep them in
        # your database), then read the payment with GET /v1/gateway/payments/{PaymentId}.
        print(f"verified callback {self.headers.get('X-Callback-Id')} (sequence "
              f"{self.headers.get('X-Callback-Sequence')}) for payment {payment_id}", flush=True)
        self.send_response(204)
        self.end_headers()

    def log_message(self, format, *args):  # the lines above say what matters
        pass


if __name__ == "__main__":
    if not SECRET:
        sys.exit("Set KARIBCHE_CALLBACK_SECRET to your callbackSecret.")
    port = int(os.environ.get("PORT", "3000"))
    print(f"listening on http://127.0.0.1:{port}/", flush=True)
    HTTPServer(("127.0.0.1", port), CallbackHandler).serve_forever()
