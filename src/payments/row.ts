import type { Status } from './state-machine.ts';
import type { InstallmentProduct } from './rules/installment.ts';

/** A row of the payments table, as both drivers return it. */
export interface PaymentRow {
  pay_id: string;
  client_id: string;
  status: Status;
  currency: string;
  amount: number;
  subtotal: number | null;
  tax: number | null;
  shipping: number | null;
  /** Captured: 0 until money is taken, the amount of an approved purchase, the completed amount. */
  confirmed_amount: number;
  returned_amount: number;
  return_url: string | null;
  callback_url: string | null;
  extra: string | null;
  extra2: string | null;
  split_iban: string | null;
  split_amount: number | null;
  split_returned_amount: number | null;
  user_ip: string | null;
  expiration_minutes: number;
  expires_at: Date;
  methods: number[];
  installment_products: InstallmentProduct[] | null;
  pre_auth: boolean;
  pre_auth_expires_at: Date | null;
  language: 'KA' | 'EN';
  merchant_payment_id: string | null;
  skip_info_message: boolean;
  save_card: boolean;
  save_card_to_date: string | null;
  rec_id: string | null;
  description: string | null;
  transaction_id: string | null;
  rrn: string | null;
  payment_method: number | null;
  result_code: string | null;
  initiator: 'client' | 'merchant';
  card_mask: string | null;
  /** MMYY of the card used, once approved. */
  card_expiry: string | null;
  /** The 3-D Secure challenge the current attempt waits for. */
  challenge_id: string | null;
  attempts: number;
  paid_at: Date | null;
  /** The saved card a merchant-initiated charge used. */
  charged_rec_id: string | null;
  event_seq: number;
  /** Bank profile: the business day whose GEL volume counts this payment. */
  limit_day: string | null;
  /** The callback conformance run that made this payment (its callbacks are the run's to send). */
  conformance_run: string | null;
  created_at: Date;
  updated_at: Date;
}
