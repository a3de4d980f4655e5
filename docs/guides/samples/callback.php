<?php
// A callback endpoint for Karibche in PHP (7.3 or later), with nothing but PHP itself.
// It checks both signatures every callback carries and answers 204; anything else gets 400.
//
//   KARIBCHE_CALLBACK_SECRET='whsec_…' php -S 127.0.0.1:3000 callback.php
//
// In your application, call the two functions from the script your callback URL runs.
// Use either check; both always arrive. The same checks in Node and Python are in callback.mjs
// and callback.py beside this file.

const TOLERANCE_SECONDS = 300; // refuse a signature older (or newer) than five minutes

function karibche_recent(string $t): bool
{
    return ctype_digit($t) && abs(time() - (int) $t) <= TOLERANCE_SECONDS;
}

/**
 * X-Callback-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">, keyed with the
 * secret as text. During a secret rotation it carries two v1 values: either may match.
 */
function verify_karibche_signature(string $secret, string $header, string $rawBody): bool
{
    $t = null;
    $signatures = [];
    foreach (explode(',', $header) as $part) {
        [$key, $value] = array_pad(explode('=', $part, 2), 2, '');
        if ($key === 't') $t = $value;
        if ($key === 'v1') $signatures[] = $value;
    }
    if ($t === null || !karibche_recent($t)) return false;
    $expected = hash_hmac('sha256', "$t.$rawBody", $secret);
    foreach ($signatures as $signature) {
        if (hash_equals($expected, $signature)) return true;
    }
    return false;
}

/**
 * Standard Webhooks: webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<raw body>">,
 * keyed with the base64-decoded part of the secret after "whsec_". Space-separated during a rotation.
 */
function verify_standard_webhook(string $secret, array $headers, string $rawBody): bool
{
    $id = $headers['webhook-id'] ?? '';
    $t = $headers['webhook-timestamp'] ?? '';
    if ($id === '' || !karibche_recent($t)) return false;
    $key = base64_decode(preg_replace('/^whsec_/', '', $secret), true);
    if ($key === false) return false;
    $expected = base64_encode(hash_hmac('sha256', "$id.$t.$rawBody", $key, true));
    foreach (explode(' ', $headers['webhook-signature'] ?? '') as $signature) {
        if (strncmp($signature, 'v1,', 3) === 0 && hash_equals($expected, substr($signature, 3))) return true;
    }
    return false;
}

$secret = getenv('KARIBCHE_CALLBACK_SECRET') ?: ''; // the callbackSecret of your credentials
if ($secret === '') {
    http_response_code(500);
    error_log('Set KARIBCHE_CALLBACK_SECRET to your callbackSecret.');
    exit;
}
// Verify the body exactly as it arrived, before any JSON parsing.
$rawBody = file_get_contents('php://input');
$headers = array_change_key_case(getallheaders(), CASE_LOWER);
$karibche = verify_karibche_signature($secret, $headers['x-callback-signature'] ?? '', $rawBody);
$standard = verify_standard_webhook($secret, $headers, $rawBody);
if (!$karibche || !$standard) {
    error_log(sprintf('refused a callback: X-Callback-Signature %s, webhook-signature %s', $karibche ? 'valid' : 'invalid', $standard ? 'valid' : 'invalid'));
    http_response_code(400);
    exit;
}
$paymentId = json_decode($rawBody, true)['PaymentId'];
// Delivery is at least once: skip an X-Callback-Id you have already processed (keep them in your
// database), then read the payment with GET /v1/gateway/payments/{PaymentId}.
error_log(sprintf('verified callback %s (sequence %s) for payment %s', $headers['x-callback-id'] ?? '', $headers['x-callback-sequence'] ?? '', $paymentId));
http_response_code(204);
