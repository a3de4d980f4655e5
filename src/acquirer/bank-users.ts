// Test users of the simulated internet bank (method 7). Wrong credentials are a login error, not a
// payment attempt.
export const BANK_USERS: Readonly<Record<string, { password: string; outcome: 'approve' | 'decline'; declineCode?: string }>> = {
  demo: { password: 'demo', outcome: 'approve' },
  empty: { password: 'demo', outcome: 'decline', declineCode: 'decline_not_sufficient_funds' },
  blocked: { password: 'demo', outcome: 'decline', declineCode: 'decline_restricted_card' },
};

export function bankLogin(username: string, password: string) {
  const name = username.trim().toLowerCase();
  const user = Object.hasOwn(BANK_USERS, name) ? BANK_USERS[name] : undefined;
  return user && user.password === password ? user : null;
}
