// The one callback-target rule (resolveCallbackUrl) and the target of a payment's callbacks
// (callbackTarget): parsed URLs, never string prefixes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CALLBACK_URL_MAX_LENGTH, callbackTarget, resolveCallbackUrl } from './addresses.ts';

const REGISTERED = ['http://localhost', 'http://127.0.0.1:3000', 'https://shop.example/hooks'];
// String prefixes of a registered address that lead elsewhere.
const HOSTILE = ['http://localhost.attacker.example/cb', 'http://127.0.0.1:3000@127.0.0.1:4000/x'];

describe('the one callback-target resolver', () => {
  it('refuses a longer host and a userinfo that hides the real port, and says why', () => {
    const [longerHost, userinfo] = HOSTILE.map((u) => resolveCallbackUrl(u, REGISTERED));
    assert.deepEqual(longerHost, { ok: false, reason: longerHost!.ok ? '' : longerHost!.reason, unregistered: true });
    assert.match(longerHost!.ok ? '' : longerHost!.reason, /registered/);
    assert.equal(userinfo!.ok, false);
    assert.equal(
      !userinfo!.ok && userinfo!.unregistered,
      false,
      'a userinfo URL is malformed, not merely unregistered',
    );
  });

  it('accepts the same scheme, host and port with a path on a segment boundary', () => {
    for (const url of [
      'http://localhost/cb',
      'http://localhost:80/cb',
      'http://127.0.0.1:3000/x?id=1',
      'https://shop.example/hooks',
      'https://shop.example/hooks/a',
    ]) {
      assert.deepEqual(resolveCallbackUrl(url, REGISTERED), { ok: true, url }, url);
    }
    for (const url of [
      'https://shop.example/hooksx',
      'https://shop.example/hook',
      'http://127.0.0.1:3001/x',
      'https://localhost/cb',
      'http://localhost/cb#f',
      'ftp://localhost/',
    ]) {
      assert.equal(resolveCallbackUrl(url, REGISTERED).ok, false, url);
    }
    assert.equal(resolveCallbackUrl(`http://localhost/${'a'.repeat(CALLBACK_URL_MAX_LENGTH)}`, REGISTERED).ok, false);
  });

  it('resolves where a payment’s callbacks go: its own URL, else the default — each only if the rule accepts it', () => {
    const merchant = (defaultCallbackUrl: string | null) => ({ defaultCallbackUrl, callbackUrlPrefixes: REGISTERED });
    for (const hostile of HOSTILE) {
      // Stored before the rule (or by hand): redelivery must not send there.
      assert.equal(callbackTarget({ callback_url: hostile }, merchant(null)), null, hostile);
      assert.equal(
        callbackTarget({ callback_url: hostile }, merchant('http://localhost/default')),
        'http://localhost/default',
        hostile,
      );
      assert.equal(callbackTarget({ callback_url: null }, merchant(hostile)), null, hostile);
    }
    assert.equal(
      callbackTarget({ callback_url: 'http://localhost/own' }, merchant('http://localhost/default')),
      'http://localhost/own',
    );
  });
});
