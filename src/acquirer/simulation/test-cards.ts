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
  | 'check_with_acquirer'
  // Approved, and a later operation on the payment fails (so merchants can test what they fear most).
  | 'approve_refunds_declined'
  | 'approve_refunds_lost'
  | 'approve_capture_declined'
  // Approved at the checkout, saved, and every later charge of the saved card declined.
  | 'approve_executions_declined'
  // 3-D Secure outcomes, each answered with one of the bank's nine resultCodes.
  | '3ds_frictionless_decline'
  | '3ds_challenge_abandoned'
  | '3ds_attempted'
  | '3ds_unavailable'
  | '3ds_rejected';

/** Behaviours whose authorisation is approved (the others decline, challenge or do not answer). */
export const APPROVING: ReadonlySet<Behaviour> = new Set<Behaviour>([
  'approve',
  'approve_block_7',
  'approve_refunds_declined',
  'approve_refunds_lost',
  'approve_capture_declined',
  'approve_executions_declined',
  '3ds_attempted',
]);

/** Behaviours that start a 3-D Secure challenge. */
export const CHALLENGING: ReadonlySet<Behaviour> = new Set<Behaviour>(['challenge', '3ds_challenge_abandoned']);

/**
 * The resultCode of a declining behaviour. The bank knows nine resultCodes (tpay-reference 4.3), so
 * the 3-D Secure outcomes use those: the issuer refusing without a challenge is its general decline,
 * a rejection by the issuer's risk check is suspected fraud, a directory or ACS that cannot
 * authenticate leaves it to be checked with the acquirer, and an abandoned challenge ends as the
 * general decline once the ACS gives up.
 */
export function declineCodeOf(b: Behaviour): string {
  switch (b) {
    case '3ds_frictionless_decline':
    case '3ds_challenge_abandoned':
      return 'decline_general';
    case '3ds_rejected':
      return 'decline_suspected_fraud';
    case '3ds_unavailable':
      return 'check_with_acquirer';
    default:
      return b.startsWith('decline_') || b === 'check_with_acquirer' ? b : 'decline_general';
  }
}

/** What a saved card of this behaviour answers when the merchant charges it (no cardholder there). */
export const EXECUTION_DECLINE_CODE = 'decline_not_sufficient_funds';

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
  '4000000000000341': 'approve_refunds_declined',
  '4000000000005126': 'approve_refunds_lost',
  '4000000000000259': 'approve_capture_declined',
  '4000000000004871': 'approve_executions_declined',
  '4000000000003105': '3ds_frictionless_decline',
  '4000000000003113': '3ds_challenge_abandoned',
  '4000000000003121': '3ds_attempted',
  '4000000000003139': '3ds_unavailable',
  '4000000000003147': '3ds_rejected',
};

/** Any number not in the table is approved (the page has already checked it with Luhn). */
export const behaviourOf = (number: string): Behaviour => TEST_CARDS[number] ?? 'approve';

/** The 3-D Secure code that passes the sandbox challenge. */
export const CHALLENGE_CODE = '1234';

/** The card in the simulated Apple Pay / Google Pay wallet (its number is never stored, only its mask). */
export const WALLET_CARD = '4242424242424242';

/** Delayed outcomes (a slow bank-login user, a banking app answering late) settle after this long. */
export const DELAYED_OUTCOME_MINUTES = 5;
