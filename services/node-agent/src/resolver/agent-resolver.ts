import { writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { allPolicyResolverAddresses } from '@qw/wireguard';
import type { NodeAgentConfig } from '../config.ts';
import type { WgHost } from '../wg-host.ts';
import { shippedBlocklistDir } from './blocklists.ts';
import { NodeResolver } from './node-resolver.ts';
import { policyInterfaceAddresses, resolverListen, ulaPrefixOf, upstreamAddress } from './unbound-config.ts';

/** The agent's resolver from its configuration (NODE_RESOLVER, NODE_RESOLVER_*). */
export function nodeResolverFor(config: NodeAgentConfig, logger: Logger): NodeResolver {
  const upstream = config.NODE_RESOLVER_UPSTREAM.split(',')
    .map((u) => u.trim())
    .filter(Boolean);
  for (const u of upstream) {
    if (upstreamAddress(u) === null) throw new Error(`NODE_RESOLVER_UPSTREAM: not an address or address@port: ${u}`);
  }
  const prefix = config.WG_COMMAND_PREFIX.trim();
  return new NodeResolver(
    {
      binary: config.NODE_RESOLVER,
      directory: path.resolve(config.NODE_RESOLVER_DIR),
      blocklistDir: path.resolve(config.NODE_RESOLVER_BLOCKLISTS ?? shippedBlocklistDir),
      upstream,
      prefix: prefix ? prefix.split(/\s+/) : [],
    },
    logger,
  );
}

/**
 * Once the node knows its tunnel addresses: gives the interface the 31 policy addresses (IPv6 ones
 * only when the node's own IPv6 address is there) in one `ip -batch`, and starts the resolver on
 * them and the node's own addresses. A failure is logged and reported as the resolver's health; the
 * node keeps carrying tunnels.
 */
export async function startNodeResolver(
  resolver: NodeResolver,
  host: WgHost,
  directory: string,
  addressing: { node_ipv4: string; node_ipv6: string; ipv6_cidr: string },
  logger: Logger,
): Promise<void> {
  if (!resolver.enabled) return;
  try {
    const shown = await host.ip(['-6', '-o', 'address', 'show', 'dev', host.iface]).catch(() => '');
    const withIpv6 = shown.includes(` ${addressing.node_ipv6}/`);
    const ula = ulaPrefixOf(addressing.ipv6_cidr);
    const batch = policyInterfaceAddresses(allPolicyResolverAddresses(ula), withIpv6).map(
      (address) => `address replace ${address} dev ${host.iface}${address.includes(':') ? ' nodad' : ''}`,
    );
    await mkdir(directory, { recursive: true, mode: 0o755 });
    const batchFile = path.join(directory, 'addresses.batch');
    await writeFile(batchFile, `${batch.join('\n')}\n`, { mode: 0o644 });
    await host.ip(['-batch', batchFile]);
    await resolver.start(
      resolverListen({ nodeIpv4: addressing.node_ipv4, nodeIpv6: withIpv6 ? addressing.node_ipv6 : null }, ula),
    );
  } catch (error) {
    logger.error({ err: error }, 'the node resolver did not start; devices on this node get no DNS answers');
  }
}
