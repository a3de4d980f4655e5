// The sandbox test cards of SPEC 14: what the simulated issuer does with each number.

export type Behaviour =
  | 'approve'
  | 'approve_block_7'
  | 'challenge'
  | 'no_answer'
  | 'decline_general'
  | 'decline_not_sufficient_funds'
  | 'decline_expired_card'
  | 'decline_suspected_fraud'
  | 'decline_restricted_card'
  | 'decline_card_not_effective'
  | 'decline_invalid_card_number'
  | 'check_with_acquirer';

export const TEST_CARDS: Readonly<Record<string, Behaviour>> = {
  '4111111111111111': 'approve',
  '5555555555554444': 'approve',
  '4000000000003220': 'challenge',
  '4000000000000002': 'decline_general',
  '4000000000009995': 'decline_not_sufficient_funds',
  '4000000000000069': 'decline_expired_card',
  '4100000000000019': 'decline_suspected_fraud',
  '4000000000000127': 'decline_restricted_card',
  '4000000000000101': 'decline_card_not_effective',
  '4000000000000515': 'decline_invalid_card_number',
  '4000000000000119': 'check_with_acquirer',
  '4000000000000770': 'no_answer',
  '4000000000000838': 'approve_block_7',
};

/** Any number not in the table is approved (the page has already checked it with Luhn). */
export const behaviourOf = (number: string): Behaviour => TEST_CARDS[number] ?? 'approve';

/** The 3-D Secure code that passes the sandbox challenge. */
export const CHALLENGE_CODE = '1234';

/** The card in the simulated Apple Pay / Google Pay wallet (its number is never stored, only its mask). */
export const WALLET_CARD = '4242424242424242';
export const WALLET_METHODS: ReadonlySet<number> = new Set([9, 14]);
