// @karibche/sdk: a typed client for the Karibche payment gateway (and the bank API it mirrors).
export { Karibche, type KaribcheOptions } from './client.ts';
export { verifyCallback, type HeaderBag, type VerifiedCallback, type VerifyOptions } from './callbacks.ts';
export { KaribcheError, SignatureError, type InvalidParam, type Problem } from './errors.ts';
export type { StreamOptions } from './events.ts';
export type { Request, SecretSource } from './transport.ts';
export type * from './types.ts';
