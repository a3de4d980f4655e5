// Ertguli loyalty points (6; the bank's older documentation and its PHP framework): GEL only, as the
// bank documents. Points are spent, not blocked: purchase only. Not among the split methods the
// bank lists (Web QR, card, bank login, Apple Pay, Google Pay), and no card to save. Off until the
// operator enables it for a merchant. Simulated: too few points is "not sufficient funds".
import { defineMethod, spotAnswer, type MethodTraits } from './method.ts';

const traits: MethodTraits = {
  checkout: true,
  currencies: ['GEL'],
  preAuth: false,
  split: false,
  savesCard: false,
  simulated: true,
  needsProducts: false,
  delayable: false,
};

export const ertguliPoints = defineMethod({
  code: 6,
  key: 'ertguliPoints',
  name: 'Ertguli points',
  names: { ka: 'ერთგულის ქულები', en: 'Ertguli points' },
  traits,
  sandboxApproval: { outcome: 'approve' },
  choose: (input) => spotAnswer(6, traits, input, 'decline_not_sufficient_funds'),
});
