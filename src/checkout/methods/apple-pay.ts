// The Apple Pay sheet (9).
import { walletCheckout } from './wallet.ts';

export const applePayCheckout = walletCheckout(9, 40, 'apple');
