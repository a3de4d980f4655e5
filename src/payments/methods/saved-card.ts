// Saved card (11): a card kept at an earlier approval, charged by the merchant (/payments/execution)
// without the customer. Never chosen on the checkout; it only appears in responses.
import { defineMethod } from './method.ts';

export const savedCard = defineMethod<11, 'savedCard', { method: 11; cardToken: string }>({
  code: 11,
  key: 'savedCard',
  name: 'Saved card',
  names: { ka: 'შენახული ბარათი', en: 'Saved card' },
  traits: {
    checkout: false,
    currencies: null,
    preAuth: true,
    split: true,
    savesCard: false,
    simulated: false,
    needsProducts: false,
    delayable: false,
  },
  choose: () => ({ ok: false, unknownMethod: true }),
});
