// A merchant's callback endpoint for tests: a real HTTP server that records what arrives and
// answers as told (200, an error status, or never).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

export type Answer = number | 'hang';

export class Receiver {
  readonly received: Received[] = [];
  /** Answers in order; the last one repeats. */
  answers: Answer[] = [200];
  responseBody = 'ok';
  delayMs = 0;
  private server: http.Server | null = null;
  private hanging: http.ServerResponse[] = [];
  port = 0;
  /** The address it listens on: the loopback, or an address of the root namespace that a test's own
   * network namespaces reach (the cluster's bridge). */
  host = '127.0.0.1';

  get url(): string {
    return `http://${this.host}:${this.port}/callbacks`;
  }

  async start(port = 0, host = '127.0.0.1'): Promise<this> {
    this.host = host;
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        this.received.push({
          method: req.method!,
          path: req.url!,
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          at: Date.now(),
        });
        const answer = this.answers.length > 1 ? this.answers.shift()! : this.answers[0]!;
        if (answer === 'hang') {
          this.hanging.push(res);
          return;
        }
        setTimeout(() => res.writeHead(answer, { 'content-type': 'text/plain' }).end(this.responseBody), this.delayMs);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(port, host, resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    for (const res of this.hanging.splice(0)) res.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = null;
  }

  async waitFor(count: number, timeoutMs = 10_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    while (this.received.length < count) {
      if (Date.now() > end) throw new Error(`received ${this.received.length} of ${count} callbacks`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}
