import type net from 'node:net';

/**
 * Ends a connection with a TCP reset, as a broken link does, where that is still possible. A socket whose
 * shutdown is under way (it called `end()`, which Node does by itself when the peer has sent its FIN) is
 * destroyed instead: Node's `resetAndDestroy()` then fails with EINVAL and leaves the handle neither open
 * nor closed, so the process that called it can never exit and spins at exit at full CPU
 * (docs/development.md#a-test-process-that-never-exits).
 */
export const resetSocket = (socket: net.Socket): void => {
  if (socket.destroyed) return;
  if (socket.writableEnded || socket.connecting) {
    socket.destroy();
    return;
  }
  socket.resetAndDestroy();
};
