// JSON logs with a request id; credentials and card data are redacted wherever they appear.
import pino, { type Logger } from 'pino';

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.apikey',
  'req.headers.cookie',
  '*.client_secret',
  '*.clientSecret',
  '*.apiKey',
  '*.apikey',
  '*.callbackSecret',
  '*.adminToken',
  '*.access_token',
  '*.card',
  '*.cardNumber',
  '*.pan',
  '*.cvc',
  '*.cvv',
  '*.securityCode',
];

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, base: { service: 'karibche', pid: process.pid } }, destination);
}
