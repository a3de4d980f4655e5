// JSON logs with a request id; credentials and card data are redacted wherever they appear.
import { createInterface } from 'node:readline';
import pino, { type Logger } from 'pino';

/**
 * Fields whose values never reach a log line, wherever a logged object carries them: at its top
 * level, one level down (`{ body: { client_secret } }`) and two (`req.headers.authorization`).
 */
export const REDACTED_FIELDS: ReadonlySet<string> = new Set([
  'authorization',
  'apikey',
  'cookie',
  'client_secret',
  'clientSecret',
  'apiKey',
  'callbackSecret',
  'adminToken',
  'access_token',
  'card',
  'cardNumber',
  'pan',
  'cvc',
  'cvv',
  'securityCode',
]);
const CENSOR = '[redacted]';

function plain(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `obj` without its secrets, copied only where one was found (most lines have none). */
function censored(obj: Record<string, unknown>, depth: number): Record<string, unknown> {
  let out: Record<string, unknown> | null = null;
  for (const key in obj) {
    if (!Object.hasOwn(obj, key)) continue;
    const value = obj[key];
    let next = value;
    if (REDACTED_FIELDS.has(key)) next = value === undefined ? value : CENSOR;
    else if (depth < 2 && plain(value)) {
      // An error is logged as pino serialises it (type, message, stack and its own fields).
      const fields =
        value instanceof Error ? (pino.stdSerializers.err(value) as unknown as Record<string, unknown>) : value;
      const inner = censored(fields, depth + 1);
      if (inner !== fields) next = inner;
    }
    if (next !== value) (out ??= { ...obj })[key] = next;
  }
  return out ?? obj;
}

/**
 * Redaction of a log line's fields. Pino's own `redact` paths with wildcards cost 35–60 µs per
 * line (measured: 10× the rest of the line), a third of create-payment's gateway CPU for one
 * access line; this walk of two levels is a few hundred nanoseconds when nothing is found.
 */
export function redactLogFields(obj: Record<string, unknown>): Record<string, unknown> {
  return censored(obj, 0);
}

/** Log lines held while stdout cannot take them (a full pipe); beyond it lines are dropped. */
export const LOG_BUFFER_LIMIT = 16 * 1024 * 1024;

/** Lines held before one write to stdout: under load one write per this many bytes, not one per line. */
export const LOG_WRITE_BYTES = 4096;
/** The longest a line waits for that write when traffic is low. */
export const LOG_FLUSH_MS = 100;

/** A pino line begins `{"level":NN`: a warning (40) or worse is written at once, with what is held before it. */
const URGENT_DIGIT = '4'.charCodeAt(0);
const LEVEL_DIGIT_AT = '{"level":'.length;
const urgent = (line: string) => line.charCodeAt(LEVEL_DIGIT_AT) >= URGENT_DIGIT;

/**
 * Log lines to `fd` that never block the process, held and written together. Pino's default writes
 * synchronously and, on a pipe nobody reads any more, retries forever inside the write: the event
 * loop stops, and with it requests, timers and the shutdown limit (a SIGTERM was ignored for 30
 * minutes). Asynchronous writes with a bounded buffer keep the gateway serving and stoppable; a
 * reader that has gone (EPIPE) is ignored.
 *
 * Held rather than written line by line (issue 25): an access line per request was a write to the
 * pipe each — 5–7 % of the gateway's CPU in a pay's profile, and a wake-up of the log's reader on a
 * machine whose cores the database and the clients share. Lines now leave in writes of
 * LOG_WRITE_BYTES, or after LOG_FLUSH_MS at most, a warning or an error at once; at exit pino
 * writes what is held (synchronously), and releaseLogs() at shutdown. What a killed process (kill
 * -9, the OOM killer) loses is the last LOG_FLUSH_MS of its information lines.
 */
export function logLines(fd: number, flushMs = LOG_FLUSH_MS) {
  const held = pino.destination({
    dest: fd,
    sync: false,
    maxLength: LOG_BUFFER_LIMIT,
    minLength: LOG_WRITE_BYTES,
    periodicFlush: flushMs,
  });
  held.on('error', () => {
    // EPIPE and friends: nowhere left to log to; the gateway carries on.
  });
  const stream: pino.DestinationStream = {
    write(line: string) {
      held.write(line);
      if (urgent(line)) held.flush();
    },
  };
  return { held, stream };
}

let stdout: ReturnType<typeof logLines> | null = null;

function stdoutDestination(): pino.DestinationStream {
  stdout ??= logLines(1);
  return stdout.stream;
}

/**
 * Copies the log lines of another process (a cluster worker, whose stdout is a pipe to this process)
 * to this process's log stream, whole lines only, so that lines of several workers never interleave;
 * with the same bound and the same indifference to a reader that has gone. Resolves when the other
 * process's stdout has closed (its last line has been taken).
 */
export function forwardLogs(from: NodeJS.ReadableStream): Promise<void> {
  const dest = stdoutDestination();
  const lines = createInterface({ input: from, crlfDelay: Infinity });
  lines.on('line', (line) => {
    try {
      dest.write(`${line}\n`);
    } catch {
      // The log stream has been ended (the process is exiting): the line is dropped.
    }
  });
  return new Promise((resolve) => lines.once('close', resolve));
}

/**
 * Before the process exits: give buffered log lines up to `ms` to reach stdout, then make sure the
 * exit itself cannot block on them (pino flushes synchronously at exit, forever on a full pipe).
 * `end()` writes what is buffered and then emits 'close' (stdout itself stays open).
 */
export async function releaseLogs(ms = 1_000): Promise<void> {
  const dest = stdout?.held;
  if (!dest) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    new Promise<void>((resolve) => {
      dest.once('close', () => resolve());
      dest.once('error', () => resolve());
      try {
        dest.end();
      } catch {
        resolve();
      }
    }),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))),
  ]);
  clearTimeout(timer);
  abandonLogs();
}

/** What cannot be written by now is dropped: the exit does not wait for a reader. */
export function abandonLogs(): void {
  if (stdout) stdout.held.flushSync = () => {};
}

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    { level, formatters: { log: redactLogFields }, base: { service: 'karibche', pid: process.pid } },
    destination ?? stdoutDestination(),
  );
}
