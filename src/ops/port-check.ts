// The port is checked before the gateway opens or migrates its database and before the sandbox
// writes its files: a start that cannot listen should say so in one line and leave the data dir as
// it was, not fail after migrations with a stack trace (issue 26). The check binds the port and lets
// it go at once; a program that takes it in the moment between is still caught when the gateway
// listens (the same message, see listenError).
import net from 'node:net';
import { ConfigError } from '../config.ts';

/** The one line for a port the gateway cannot have, naming the variables that choose another. */
export function portProblem(code: string | undefined, host: string, port: number): ConfigError | null {
  const where = `port ${port} on ${host}`;
  if (code === 'EADDRINUSE') {
    return new ConfigError(
      `${where} is already in use (another gateway, or another program, is listening there): stop it, or start on another port with PORT=${port === 65535 ? 8081 : port + 1}`,
    );
  }
  if (code === 'EACCES')
    return new ConfigError(
      `${where} needs privileges this process does not have: choose a port above 1023 with PORT=8080`,
    );
  if (code === 'EADDRNOTAVAIL')
    return new ConfigError(`${host} is not an address of this machine (HOST): use HOST=127.0.0.1 or HOST=0.0.0.0`);
  return null;
}

/** Resolves when `host:port` could be bound now; rejects with a ConfigError when it cannot. */
export async function checkPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const server = net.createServer();
    server.once('error', (err: NodeJS.ErrnoException) => reject(portProblem(err.code, host, port) ?? err));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve()));
  });
}

/** An error of the gateway's own listen() as the same one line, when it is about the port. */
export function listenError(err: unknown, host: string, port: number): unknown {
  return portProblem((err as NodeJS.ErrnoException)?.code, host, port) ?? err;
}
