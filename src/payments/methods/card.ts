// Card (5): the customer types a card on the checkout; the acquirer gets the card (never stored or logged).
import type { CardDetails } from '../../acquirer/acquirer.ts';
import { checkCardInput } from '../rules/customer.ts';
import { defineMethod } from './method.ts';

export const card = defineMethod<5, 'card', { method: 5; card: CardDetails }>({
  code: 5,
  key: 'card',
  name: 'Card',
  names: { ka: 'ბარათი', en: 'Card' },
  traits: {
    checkout: true,
    currencies: null,
    preAuth: true,
    split: true,
    savesCard: true,
    simulated: false,
    needsProducts: false,
    delayable: false,
  },
  sandboxApproval: {
    card: { number: '4111111111111111', expiry: '12/30', securityCode: '123', holder: 'SANDBOX CUSTOMER' },
  },
  choose(input, ctx) {
    const checked = checkCardInput(
      input.card ?? { number: '', expiry: '', securityCode: '', holder: '' },
      ctx.cardMonth,
    );
    return checked.ok
      ? { ok: true, details: { method: 5, card: checked.card } }
      : { ok: false, cardProblems: checked.problems };
  },
});
