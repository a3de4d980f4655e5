// Texts the checkout and the dashboard both show, written once: the two dictionaries spread them in,
// so a customer and a merchant read the same word for the same thing.
import { languageTexts, type Language } from './languages.ts';

const en = {
  ...languageTexts('en'),
  amount: 'Amount',
  card: 'Card',
  time: 'Time',
  password: 'Password',
  reference: 'Reference',
  bankReference: 'Bank reference (RRN)',
};

export type SharedTexts = typeof en;

export const SHARED_TEXTS: Record<Language, SharedTexts> = {
  en,
  ka: {
    ...languageTexts('ka'),
    amount: 'თანხა',
    card: 'ბარათი',
    time: 'დრო',
    password: 'პაროლი',
    reference: 'ოპერაციის ნომერი',
    bankReference: 'ბანკის ნომერი (RRN)',
  },
};
