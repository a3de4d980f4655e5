// callbacks.verify on real callbacks the gateway sent to a receiver: each scheme on its own, both
// secrets during a rotation, and the refusals (another body, another secret, an old timestamp).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { BACKENDS } from '../../src/testing/databases.ts';
import type { TestGateway } from '../../src/testing/harness.ts';
import { Receiver, type Received } from '../../src/testing/receiver.ts';
import { SignatureError, verifyCallback } from '../src/index.ts';
import { pay, sdkGateway, sdkMerchant } from './helpers.ts';

const only = (h: Received['headers'], prefix: string) =>
  Object.fromEntries(
    Object.entries(h).filter(([k]) => !/^(x-callback-signature|webhook-)/.test(k) || k.startsWith(prefix)),
  );
const refused = (fn: () => unknown, pattern: RegExp) =>
  assert.throws(fn, (e: unknown) => e instanceof SignatureError && pattern.test(e.message));

for (const backend of BACKENDS) {
  describe(`callbacks.verify on the gateway's callbacks [${backend}]`, { timeout: 120_000 }, () => {
    let t: TestGateway;
    let base: string;
    const receiver = new Receiver();
    before(async () => {
      ({ t, base } = await sdkGateway(backend));
      await receiver.start();
    });
    after(async () => {
      await receiver.stop();
      await t.close();
    });

    const paidWithCallback = async (client: Awaited<ReturnType<typeof sdkMerchant>>['client']) => {
      const p = await client.payments.create({
        amount: { currency: 'GEL', total: 5 },
        returnurl: 'https://shop.example/r',
        callbackUrl: receiver.url,
      });
      const count = receiver.received.length;
      await pay(t, p.payId);
      await t.gw.services.callbacks.drain();
      await receiver.waitFor(count + 1);
      return { payId: p.payId, callback: receiver.received[count]! };
    };

    it('verifies X-Callback-Signature and Standard Webhooks each on its own, with headers as an object or a Headers', async () => {
      const { client, credentials } = await sdkMerchant(t, base);
      const { payId, callback } = await paidWithCallback(client);
      const secret = credentials.callbackSecret;
      const classic = client.callbacks.verify(only(callback.headers, 'x-callback-signature'), callback.body, secret);
      assert.deepEqual(
        [classic.payId, classic.scheme, classic.callbackId],
        [payId, 'x-callback-signature', callback.headers['x-callback-id']],
      );
      const standard = client.callbacks.verify(
        new Headers(only(callback.headers, 'webhook-') as Record<string, string>),
        Buffer.from(callback.body),
        secret,
      );
      assert.deepEqual(
        [standard.payId, standard.scheme, standard.callbackId],
        [payId, 'standard-webhooks', callback.headers['webhook-id']],
      );
      // The specification's own library agrees with the same secret.
      assert.deepEqual(new Webhook(secret).verify(callback.body, callback.headers as Record<string, string>), {
        PaymentId: payId,
      });

      refused(
        () => verifyCallback(callback.headers, callback.body.replace(payId, 'pay_other'), secret),
        /does not match/,
      );
      refused(
        () =>
          verifyCallback(
            only(callback.headers, 'webhook-'),
            callback.body,
            `whsec_${Buffer.from('another secret').toString('base64')}`,
          ),
        /does not match/,
      );
      refused(
        () => verifyCallback(callback.headers, callback.body, secret, { now: Date.now() + 301_000 }),
        /tolerance/,
      );
      refused(() => verifyCallback({ 'content-type': 'application/json' }, callback.body, secret), /neither/);
      assert.equal(
        verifyCallback(callback.headers, callback.body, secret, { now: Date.now() + 200_000, toleranceSeconds: 600 })
          .payId,
        payId,
      );
    });

    it('during a callback-secret rotation each callback carries both signatures, and either secret verifies it', async () => {
      const { client, credentials } = await sdkMerchant(t, base);
      const rotated = await t.admin('POST', `/admin/v1/merchants/${credentials.clientId}/callback-secret`);
      const fresh = rotated.json().callbackSecret as string;
      const { payId, callback } = await paidWithCallback(client);
      assert.equal(String(callback.headers['x-callback-signature']).match(/v1=/g)!.length, 2);
      assert.equal(String(callback.headers['webhook-signature']).split(' ').length, 2);
      for (const secret of [credentials.callbackSecret, fresh, [fresh, credentials.callbackSecret]]) {
        for (const scheme of ['x-callback-signature', 'webhook-']) {
          assert.equal(client.callbacks.verify(only(callback.headers, scheme), callback.body, secret).payId, payId);
        }
      }
    });
  });
}
