import type { Socket } from 'node:net';
import { NonTlsError, getExtensionData, readTlsClientHello } from 'read-tls-client-hello';

/**
 * What a tunnel's first bytes were: a TLS ClientHello (with its server name, if it sent one),
 * not TLS, or nothing in time.
 */
export type Hello = { tls: false } | { tls: true; serverName: string | undefined } | { timedOut: true };

/**
 * Reads the tunnel's first TLS record without consuming it (the library puts every byte back
 * into the socket, so the handshake goes on unchanged to the host): whether it is a
 * ClientHello, and its server name. Not TLS: a first byte that is no handshake record, or a
 * socket closed before one whole record.
 */
export async function readHello(socket: Socket, head: Buffer, timeoutMs: number): Promise<Hello> {
  if (head.length > 0) socket.unshift(head);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Hello>((resolve) => {
    timer = setTimeout(() => resolve({ timedOut: true }), timeoutMs);
  });
  try {
    return await Promise.race([
      readTlsClientHello(socket).then((hello): Hello => ({
        tls: true,
        serverName: getExtensionData(hello, 'sni')?.serverName,
      })),
      timeout,
    ]);
  } catch (err) {
    if (err instanceof NonTlsError) return { tls: false };
    throw err;
  } finally {
    clearTimeout(timer);
  }
}
