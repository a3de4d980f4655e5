// Test users of the simulated internet bank (method 7). Wrong credentials are a login error, not a
// payment attempt. The slow users' bank decides only DELAYED_OUTCOME_MINUTES later (sandbox clock):
// the payment stays Processing until the reconciler hears the answer.
export interface BankUser {
  password: string;
  outcome: 'approve' | 'decline';
  declineCode?: string;
  /** The answer comes DELAYED_OUTCOME_MINUTES of sandbox time later. */
  delayed?: boolean;
}

export const BANK_USERS: Readonly<Record<string, BankUser>> = {
  demo: { password: 'demo', outcome: 'approve' },
  empty: { password: 'demo', outcome: 'decline', declineCode: 'decline_not_sufficient_funds' },
  blocked: { password: 'demo', outcome: 'decline', declineCode: 'decline_restricted_card' },
  'slow-approve': { password: 'demo', outcome: 'approve', delayed: true },
  'slow-decline': { password: 'demo', outcome: 'decline', declineCode: 'decline_not_sufficient_funds', delayed: true },
};

export function bankLogin(username: string, password: string): BankUser | null {
  const name = username.trim().toLowerCase();
  const user = Object.hasOwn(BANK_USERS, name) ? BANK_USERS[name] : undefined;
  return user && user.password === password ? user : null;
}
