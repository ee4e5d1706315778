import { expect } from 'vitest';
import type { SvcClient } from '../../clients/typescript/index.ts';

/**
 * A TCP connect from inside sandbox `from` to `host:port` within 5 s, by bash's /dev/tcp:
 * `open` when it connected, `closed` when it was dropped, refused or timed out. Packets, not
 * the policy's text: what the network tests assert.
 */
export async function tcpProbe(
  client: SvcClient,
  from: string,
  host: string,
  port: number,
): Promise<'open' | 'closed'> {
  const r = await client.execSandbox(from, {
    command: [
      'bash',
      '-c',
      'timeout 5 bash -c "exec 3<>/dev/tcp/$0/$1" 2>/dev/null && echo open || echo closed',
      host,
      String(port),
    ],
  });
  expect(r.exitCode, r.stderr).toBe(0);
  return r.stdout.trim() as 'open' | 'closed';
}
