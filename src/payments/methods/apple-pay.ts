// Apple Pay (9): the wallet sheet pays with the card in the customer's device. Simulated in the sandbox.
import { defineMethod, spotAnswer, type MethodTraits } from './method.ts';

const traits: MethodTraits = {
  checkout: true,
  currencies: null,
  preAuth: true,
  split: true,
  savesCard: false,
  simulated: true,
  needsProducts: false,
  delayable: false,
};

export const applePay = defineMethod<9, 'applePay', { method: 9; wallet: 'apple-pay' }>({
  code: 9,
  key: 'applePay',
  name: 'Apple Pay',
  names: { ka: 'Apple Pay', en: 'Apple Pay' },
  traits,
  sandboxApproval: { outcome: 'approve' },
  choose(input) {
    const checked = spotAnswer(9, traits, input);
    return checked.ok ? { ok: true, details: { ...checked.details, wallet: 'apple-pay' } } : checked;
  },
});
