// Google Pay (14): purchase only (Visa/Mastercard with 3-D Secure); its card can be saved. Simulated
// in the sandbox.
import { defineMethod, spotAnswer, type MethodTraits } from './method.ts';

const traits: MethodTraits = {
  checkout: true,
  currencies: null,
  preAuth: false,
  split: true,
  savesCard: true,
  simulated: true,
  needsProducts: false,
  delayable: false,
};

export const googlePay = defineMethod<14, 'googlePay', { method: 14; wallet: 'google-pay' }>({
  code: 14,
  key: 'googlePay',
  name: 'Google Pay',
  names: { ka: 'Google Pay', en: 'Google Pay' },
  traits,
  sandboxApproval: { outcome: 'approve' },
  choose(input) {
    const checked = spotAnswer(14, traits, input);
    return checked.ok ? { ok: true, details: { ...checked.details, wallet: 'google-pay' } } : checked;
  },
});
