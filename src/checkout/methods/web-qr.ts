// The Web QR panel (4): a code the customer scans with the banking app (in the sandbox, the
// checkout's /qr page stands in for the app); the page waits for the app's answer.
import QRCode from 'qrcode';
import { fill, html, trusted, type Html } from '../../html/html.ts';
import { qrToken } from '../csrf.ts';
import { base, money, sandboxBox, type PageContext } from '../layout.ts';
import { icon } from '../marks.ts';
import type { CheckoutMethod, PanelState } from './method.ts';

function qrPanel(c: PageContext, st: PanelState): Html {
  const t = c.t;
  const p = c.payment;
  const label = fill(t.qrImage, { amount: money(c, p.amount), merchant: c.merchant.name });
  return html`<section class="panel qr-panel" data-qr-status="${base(c)}/status" data-status="${p.status}" data-attempts="${p.attempts}" data-max-attempts="${c.maxAttempts}" data-result-url="${base(c)}?lang=${t.lang}" data-text-processing="${t.qrProcessing}" data-text-declined="${t.qrDeclined}" data-text-done="${t.qrDone}">
<h2>${icon('qr')}<span>${t.qrTitle}</span></h2>
<div class="qr-layout"><div class="qr" role="img" aria-label="${label}">${st.qrSvg ?? ''}</div>
<ol class="steps"><li>${t.qrStep1}</li><li>${t.qrStep2}</li><li>${t.qrStep3}</li></ol></div>
<p class="live" role="status"><span class="spinner" aria-hidden="true"></span><span data-live-text>${t.qrWaiting}</span></p>
${sandboxBox(c, html`<p>${t.sbQr}</p>`)}
<p class="center"><a class="secondary-link" href="${st.qrUrl ?? '#'}">${t.qrOpen}</a></p>
</section>`;
}

export const webQrCheckout: CheckoutMethod = {
  code: 4,
  order: 20,
  icon: () => icon('qr'),
  panel: qrPanel,
  async prepare({ payment, publicUrl, checkoutSecret }) {
    const qrUrl = `${publicUrl}/checkout/${payment.pay_id}/qr/${qrToken(checkoutSecret, payment.pay_id)}`;
    return {
      qrUrl,
      qrSvg: trusted(await QRCode.toString(qrUrl, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' })),
    };
  },
  refreshSeconds: 5,
  // The customer answers in the banking app (the /qr page), not with a form of the pay page.
  readForm: () => null,
};
