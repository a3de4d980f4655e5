// The Google Pay sheet (14).
import { walletCheckout } from './wallet.ts';

export const googlePayCheckout = walletCheckout(14, 50, 'google');
