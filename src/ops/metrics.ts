// Prometheus metrics. One registry per gateway instance (tests run several in one process).
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export class Metrics {
  readonly registry = new Registry();
  readonly httpDuration = new Histogram({
    name: 'karibche_http_request_duration_seconds',
    help: 'HTTP request duration by route, method and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });
  readonly paymentsCreated = new Counter({ name: 'karibche_payments_created_total', help: 'Payments created', registers: [this.registry] });
  readonly paymentsExpired = new Counter({ name: 'karibche_payments_expired_total', help: 'Payments expired by the sweeper', registers: [this.registry] });
  readonly callbackAttempts = new Counter({ name: 'karibche_callback_attempts_total', help: 'Callback attempts by outcome', labelNames: ['outcome'], registers: [this.registry] });
  readonly callbackLatency = new Histogram({
    name: 'karibche_callback_delivery_seconds',
    help: 'From the final-status event to the merchant answering 2xx',
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 60, 600, 3600],
    registers: [this.registry],
  });

  constructor(defaults = true) {
    if (defaults) collectDefaultMetrics({ register: this.registry, prefix: 'karibche_' });
  }
}
