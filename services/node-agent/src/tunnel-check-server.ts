/**
 * The tunnel check's server (see tunnel-check.ts), a process of its own so it listens in the
 * interface's network namespace. Answers JSON to the web app (CORS for the site's origins) and a
 * small page to a browser opening the address itself. Keeps nothing and logs no request.
 */
import { execFile } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { parseWgDump, wgShowDumpArgs } from '@qw/wireguard';
import { corsHeaders, tunnelCheckAnswer, type TunnelCheckSettings } from './tunnel-check.ts';

const run = promisify(execFile);
const settings = JSON.parse(process.env.QW_TUNNEL_CHECK ?? '{}') as TunnelCheckSettings;

async function answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const cors = corsHeaders(request.headers.origin, settings.origins);
  const common = { ...cors, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };
  if (request.method === 'OPTIONS') {
    response.writeHead(204, common).end();
    return;
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.writeHead(405, { ...common, allow: 'GET' }).end();
    return;
  }
  const { stdout } = await run('wg', wgShowDumpArgs(settings.iface), { maxBuffer: 64 * 1024 * 1024 });
  const result = tunnelCheckAnswer(request.socket.remoteAddress ?? '', parseWgDump(stdout).peers, settings);
  if ((request.headers.accept ?? '').includes('text/html')) {
    const text = result.through_tunnel
      ? `Protected: this device reaches the internet through Quietwire server ${result.node}. Its key starts ${result.public_key!.slice(0, 8)}. DNS: ${result.resolvers.join(', ')}.`
      : 'Not protected: this request did not come through a Quietwire tunnel.';
    response
      .writeHead(200, {
        ...common,
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': "default-src 'none'",
      })
      .end(
        `<!doctype html><html lang="en"><meta charset="utf-8"><title>Quietwire — Am I protected?</title><p>${escapeHtml(text)}</p></html>\n`,
      );
    return;
  }
  response.writeHead(200, { ...common, 'content-type': 'application/json' }).end(JSON.stringify(result));
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const servers = settings.addresses.map(() =>
  createServer((request, response) => {
    answer(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(503).end();
    });
  }),
);
let listening = 0;
for (const [index, server] of servers.entries()) {
  const host = settings.addresses[index]!;
  server.on('error', (error) => {
    // IPv6 may be off on the host: the IPv4 address still answers.
    process.stderr.write(`tunnel check: ${host.includes(':') ? 'IPv6' : 'IPv4'} listener failed: ${error.message}\n`);
    if (!host.includes(':')) process.exit(1);
  });
  server.listen(settings.port, host, () => {
    listening += 1;
    if (listening === 1) process.stdout.write('listening\n');
  });
}
function stop(): void {
  for (const server of servers) server.close();
  process.exit(0);
}
process.on('SIGTERM', stop);
// The agent holds the other end of stdin and never writes to it: its end closes when the agent
// exits, however it exits, and the check goes with it.
process.stdin.on('end', stop);
process.stdin.on('error', stop);
process.stdin.resume();
