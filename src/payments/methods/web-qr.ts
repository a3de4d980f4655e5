// Web QR (4): the customer scans a code with the bank's app and approves there. Simulated in the
// sandbox (the app's page is the checkout's /qr page); its bank can answer late.
import { defineMethod, spotAnswer, type MethodTraits } from './method.ts';

const traits: MethodTraits = {
  checkout: true,
  currencies: null,
  preAuth: true,
  split: true,
  savesCard: false,
  simulated: true,
  needsProducts: false,
  delayable: true,
};

export const webQr = defineMethod({
  code: 4,
  key: 'webQr',
  name: 'Web QR',
  names: { ka: 'QR კოდი', en: 'Web QR' },
  traits,
  sandboxApproval: { outcome: 'approve' },
  choose: (input) => spotAnswer(4, traits, input),
});
