// The one error the SDK throws: the gateway's problem JSON (status, systemCode, detail,
// invalidParams, resultCode) when there was an answer, status 0 when there was none.

export interface InvalidParam {
  name: string;
  reason: string;
  systemCode?: string;
}

export interface Problem {
  type?: string;
  title?: string;
  status?: string | number;
  systemCode?: string;
  detail?: string;
  resultCode?: string;
  invalidParams?: InvalidParam[];
  requestId?: string;
  [key: string]: unknown;
}

export class KaribcheError extends Error {
  /** HTTP status; 0 when the request got no answer (network error, timeout). */
  readonly status: number;
  readonly systemCode: string | undefined;
  readonly detail: string | undefined;
  readonly resultCode: string | undefined;
  readonly invalidParams: InvalidParam[];
  readonly requestId: string | undefined;
  /** The problem JSON as answered (or { detail: <text> } for an answer that was not JSON). */
  readonly problem: Problem;

  constructor(status: number, problem: Problem, options?: { cause?: unknown }) {
    super(describe(status, problem), options);
    this.name = 'KaribcheError';
    this.status = status;
    this.problem = problem;
    this.systemCode = problem.systemCode;
    this.detail = problem.detail;
    this.resultCode = problem.resultCode;
    this.invalidParams = problem.invalidParams ?? [];
    this.requestId = problem.requestId;
  }
}

function describe(status: number, p: Problem): string {
  const head = status ? `${status} ${p.title ?? ''}`.trim() : 'no answer';
  const code = p.systemCode ? ` (${p.systemCode})` : '';
  const params = (p.invalidParams ?? []).map((i) => `; ${i.name}: ${i.reason}`).join('');
  return `${head}${code}: ${p.detail ?? ''}${params}`;
}

/** Thrown by callbacks.verify when a callback's signature does not hold. */
export class SignatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SignatureError';
  }
}
