import { freePort } from '@qw/testkit';
import type { Stack } from '../../services/gateway/test/support/stack.ts';

/**
 * Puts a stack's gateway on a free loopback port (the API only: no copy of the web app, so a
 * benchmark needs no web build) and answers its base URL. `stack.stop()` closes it.
 */
export async function listenOnLoopback(stack: Stack): Promise<string> {
  const port = await freePort();
  await stack.app.listen({ host: '127.0.0.1', port });
  return `http://127.0.0.1:${port}`;
}
