// Every acquirer call timed and counted by outcome (Prometheus), whatever connector answers.
import type { Metrics } from '../ops/metrics.ts';
import {
  AcquirerFailed,
  AcquirerNoAnswer,
  type Acquirer,
  type AcquirerResult,
  type OperationAnswer,
} from './acquirer.ts';

const outcomeOf = (r: AcquirerResult | OperationAnswer) => ('outcome' in r ? r.outcome : r.ok ? 'ok' : 'refused');

export function instrumentAcquirer(acquirer: Acquirer, metrics: Pick<Metrics, 'acquirerCalls'>): Acquirer {
  const timed =
    <A extends unknown[], R extends AcquirerResult | OperationAnswer>(call: string, fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const end = metrics.acquirerCalls.startTimer({ call });
      try {
        const result = await fn(...args);
        end({ outcome: outcomeOf(result) });
        return result;
      } catch (err) {
        end({
          outcome: err instanceof AcquirerNoAnswer ? 'no_answer' : err instanceof AcquirerFailed ? 'failed' : 'error',
        });
        throw err;
      }
    };
  // Late-bound: a test may replace a method of the underlying acquirer while the gateway runs.
  return {
    authorise: timed('authorise', (req) => acquirer.authorise(req)),
    completeChallenge: timed('completeChallenge', (id, code, now) => acquirer.completeChallenge(id, code, now)),
    status: timed('status', (reference, now) => acquirer.status(reference, now)),
    capture: timed('capture', (reference, tx, amount) => acquirer.capture(reference, tx, amount)),
    void: timed('void', (reference, tx) => acquirer.void(reference, tx)),
    refund: timed('refund', (reference, tx, amount, split) => acquirer.refund(reference, tx, amount, split)),
  };
}
