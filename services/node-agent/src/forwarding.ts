import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** One iptables rule: its table and chain, and the match and target after them. */
export type ForwardingRule = { table: 'nat' | 'filter'; chain: string; spec: string[] };

/**
 * The rules that make the node carry its peers' traffic, for one address family (the same for
 * iptables and ip6tables): the tunnel network NATed out of the egress interface (or, without one,
 * out of every interface but the tunnel itself), forwarding allowed from the tunnel and back for
 * answers (so a host whose FORWARD policy is DROP still carries it), and peers kept from reaching
 * each other through the node (client isolation). Listed in the order they take in their chain.
 */
export function forwardingRules(iface: string, tunnelCidr: string, egressInterface?: string): ForwardingRule[] {
  const out = egressInterface ? ['-o', egressInterface] : ['!', '-o', iface];
  return [
    { table: 'nat', chain: 'POSTROUTING', spec: ['-s', tunnelCidr, ...out, '-j', 'MASQUERADE'] },
    { table: 'filter', chain: 'FORWARD', spec: ['-i', iface, '-o', iface, '-j', 'DROP'] },
    { table: 'filter', chain: 'FORWARD', spec: ['-i', iface, '-s', tunnelCidr, ...out, '-j', 'ACCEPT'] },
    {
      table: 'filter',
      chain: 'FORWARD',
      spec: ['-o', iface, '-d', tunnelCidr, '-m', 'conntrack', '--ctstate', 'RELATED,ESTABLISHED', '-j', 'ACCEPT'],
    },
  ];
}

/** Runs a command through the agent's prefix (e.g. `ip netns exec qw-node`); arrays only, no shell. */
export type Exec = (command: string, args: string[]) => Promise<string>;

export function prefixedExec(prefix: string): Exec {
  const words = prefix.trim() ? prefix.trim().split(/\s+/) : [];
  return async (command, args) => {
    const [file, ...rest] = [...words, command, ...args];
    return (await run(file!, rest)).stdout;
  };
}

/**
 * Puts the rules in place unless they are there already (`-C` before each insert, so restarts do
 * not stack copies). Inserted at the top of their chain, last first, so they come before the
 * host's own rules in the listed order. Returns how many were added.
 */
export async function ensureRules(
  exec: Exec,
  tool: 'iptables' | 'ip6tables',
  rules: ForwardingRule[],
): Promise<number> {
  let added = 0;
  for (const rule of [...rules].reverse()) {
    const at = ['-w', '5', '-t', rule.table];
    const present = await exec(tool, [...at, '-C', rule.chain, ...rule.spec]).then(
      () => true,
      () => false,
    );
    if (present) continue;
    await exec(tool, [...at, '-I', rule.chain, '1', ...rule.spec]);
    added++;
  }
  return added;
}

type Log = {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
};

/**
 * Turns the host into the tunnel's router: IPv4 and IPv6 forwarding on, and the rules of
 * `forwardingRules` for each family. IPv4 failing is an error (devices then reach the node but
 * nothing beyond, so it is logged as such); IPv6 failing only a warning (hosts without IPv6).
 * The rules stay when the agent stops: the interface and its peers stay up too, so devices keep
 * their traffic through an agent restart or upgrade.
 */
export async function enableForwarding(
  exec: Exec,
  options: { iface: string; ipv4Cidr: string; ipv6Cidr: string; egressInterface?: string },
  logger: Log,
): Promise<{ ipv4: boolean; ipv6: boolean }> {
  const { iface, ipv4Cidr, ipv6Cidr, egressInterface } = options;
  const result = { ipv4: false, ipv6: false };
  // Only the step and the exit code are logged: the failed command line names the tunnel network.
  let step = 'sysctl';
  try {
    await exec('sysctl', ['-qw', 'net.ipv4.ip_forward=1']);
    step = 'iptables';
    const added = await ensureRules(exec, 'iptables', forwardingRules(iface, ipv4Cidr, egressInterface));
    result.ipv4 = true;
    logger.info({ rulesAdded: added, egressInterface: egressInterface ?? null }, 'IPv4 forwarding and NAT in place');
  } catch (error) {
    logger.error(
      { step, code: exitCode(error) },
      'IPv4 forwarding or NAT not set up: devices reach this node but nothing beyond',
    );
  }
  try {
    step = 'sysctl';
    await exec('sysctl', ['-qw', 'net.ipv6.conf.all.forwarding=1']);
    step = 'ip6tables';
    const added = await ensureRules(exec, 'ip6tables', forwardingRules(iface, ipv6Cidr, egressInterface));
    result.ipv6 = true;
    logger.info({ rulesAdded: added }, 'IPv6 forwarding and NAT in place');
  } catch (error) {
    logger.warn(
      { step, code: exitCode(error) },
      'IPv6 forwarding or NAT not set up (IPv6 may be off on this host); IPv4 works',
    );
  }
  return result;
}

/** A failed command's exit code (or errno name, e.g. ENOENT when the tool is missing). */
function exitCode(error: unknown): number | string | null {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'number' || typeof code === 'string' ? code : null;
}
