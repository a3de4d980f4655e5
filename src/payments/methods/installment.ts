// Installment (8): the customer applies for a loan for the listed products (GEL only); offered only
// with installmentProducts. Simulated in the sandbox.
import { defineMethod, spotAnswer, type MethodTraits } from './method.ts';

const traits: MethodTraits = {
  checkout: true,
  currencies: ['GEL'],
  preAuth: true,
  split: false,
  savesCard: false,
  simulated: true,
  needsProducts: true,
  delayable: false,
};

export const installment = defineMethod({
  code: 8,
  key: 'installment',
  name: 'Installment',
  names: { ka: 'განვადება', en: 'Installment' },
  traits,
  sandboxApproval: { outcome: 'approve' },
  choose: (input) => spotAnswer(8, traits, input),
});
