// Connections that were opened but have not sent a byte yet: an HTTP client's spare connection
// (undici, browsers' pre-connect, a load balancer's pool). Node's closeIdleConnections() does not
// count them as idle (measured on Node 20: a server with one such socket did not close in 5 s; it
// waits for the 60 s headers timeout), so a graceful stop would be held by a client that has not
// asked for anything. Closing them at stop loses nothing: no request was under way.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export function trackSilentConnections(server: Server): { closeSilent(): void } {
  const silent = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    silent.add(socket);
    const spoke = () => silent.delete(socket);
    socket.once('data', spoke);
    socket.once('close', spoke);
  });
  return {
    closeSilent() {
      for (const socket of silent) if (socket.bytesRead === 0) socket.destroy();
    },
  };
}
