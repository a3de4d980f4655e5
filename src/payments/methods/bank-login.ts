// Internet bank login (7): the customer signs in to the (simulated) internet bank and approves. Wrong
// credentials are a login error, not an attempt; the slow test users' bank answers late.
import { bankLogin as simulatedBankUser } from '../../acquirer/simulation/bank-users.ts';
import { bankLoginInput } from '../rules/customer.ts';
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

export const bankLogin = defineMethod({
  code: 7,
  key: 'bankLogin',
  name: 'Internet bank login',
  names: { ka: 'ინტერნეტბანკი', en: 'Internet bank' },
  traits,
  sandboxApproval: { login: { username: 'demo', password: 'demo' } },
  choose(input) {
    // Without a login (the sandbox simulate endpoint's short form) the answer is given directly.
    if (!input.login) return spotAnswer(7, traits, input);
    const login = bankLoginInput(input.login);
    const user = login && simulatedBankUser(login.username, login.password);
    if (!user) return { ok: false, loginFailed: true };
    return {
      ok: true,
      details: {
        method: 7,
        answer: {
          outcome: user.outcome,
          ...(user.declineCode ? { declineCode: user.declineCode } : {}),
          ...(user.delayed ? { later: true } : {}),
        },
      },
    };
  },
});
