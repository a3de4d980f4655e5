// What create's group commit (batcher.ts) and the state changes' (group-commit.ts) share: work
// queued during one turn of the event loop is taken at setImmediate, right after the turn's I/O (an
// idle gateway waits microseconds), in batches of at most `maxBatch`, with at most `concurrency`
// batches running; whatever arrives meanwhile waits for a slot and goes in the next batch. (Taking
// per turn matters on PGlite, whose statements run to completion before the next request is even
// read: without it nothing would ever wait for a slot.)

export class TurnBatches<W> {
  private queue: W[] = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(
    private readonly concurrency: number,
    private readonly maxBatch: number,
    /** Runs one batch; must not reject (each waiting item is settled by it). */
    private readonly run: (batch: W[]) => Promise<void>,
  ) {}

  push(item: W): void {
    this.queue.push(item);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.concurrency && this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      this.inFlight++;
      void this.run(batch).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }
}
