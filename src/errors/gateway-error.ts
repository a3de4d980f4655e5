// The one error type of the gateway. Use cases, rules and adapters throw a GatewayError carrying a
// definition from the catalogue (its status, systemCode number, title and meaning) and what went
// wrong this time; nothing here knows HTTP. The API maps it to problem JSON (api/problem.ts), the
// checkout and dashboard to a page.
import { ERRORS, type ErrorDef } from './catalogue.ts';

/** A rule violation found on one field of a request. */
export interface FieldError {
  field: string;
  reason: string;
  /** The rule that failed: ERRORS.invalidRequest for a plain shape or format error. */
  rule: ErrorDef;
}

export interface GatewayErrorOptions {
  detail?: string;
  /** Every invalid field of the request, reported at once. */
  fields?: readonly FieldError[];
  /** Business result code (400 rejections); defaults to the definition's. */
  resultCode?: string;
  /** The caller may retry after this many seconds (409, 429, 503). */
  retryAfterSeconds?: number;
  cause?: unknown;
}

export class GatewayError extends Error {
  readonly detail: string | undefined;
  readonly fields: FieldError[];
  readonly resultCode: string | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(
    readonly def: ErrorDef,
    options: GatewayErrorOptions = {},
  ) {
    super(options.detail ?? def.title, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'GatewayError';
    this.detail = options.detail;
    this.fields = [...(options.fields ?? [])];
    this.resultCode = options.resultCode ?? def.resultCode;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

/** The type guard for whatever was thrown: a catalogue error, or something else (never cast). */
export const isGatewayError = (thrown: unknown): thrown is GatewayError => thrown instanceof GatewayError;

export function gatewayError(def: ErrorDef, options: GatewayErrorOptions = {}): GatewayError {
  return new GatewayError(def, options);
}

/**
 * One error for every invalid field of a request: when all of them broke the same named rule it
 * carries that rule's definition, otherwise the generic invalid-request one.
 */
export function invalidFields(errors: readonly FieldError[]): GatewayError {
  const rules = new Set(errors.map((e) => e.rule));
  const def = rules.size === 1 ? errors[0]!.rule : ERRORS.invalidRequest;
  const detail =
    errors.length === 1
      ? `${errors[0]!.field} ${errors[0]!.reason}`
      : `Invalid fields: ${[...new Set(errors.map((e) => e.field))].join(', ')}`;
  return new GatewayError(def, { detail, fields: errors });
}

/** A single invalid field. */
export function invalidField(field: string, reason: string, rule: ErrorDef = ERRORS.invalidRequest): GatewayError {
  return invalidFields([{ field, reason, rule }]);
}

/** Collects the field errors of one request, so every rule reports and all are answered at once. */
export class Violations {
  readonly list: FieldError[] = [];

  add(field: string, reason: string, rule: ErrorDef = ERRORS.invalidRequest): void {
    this.list.push({ field, reason, rule });
  }

  has(prefix?: string): boolean {
    return prefix === undefined
      ? this.list.length > 0
      : this.list.some(
          (e) => e.field === prefix || e.field.startsWith(`${prefix}.`) || e.field.startsWith(`${prefix}[`),
        );
  }

  /** Throws every collected violation as one error; returns when there is none. */
  throwIfAny(): void {
    if (this.list.length) throw invalidFields(this.list);
  }
}
