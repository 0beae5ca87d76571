/**
 * wg-quick's kill switch for Linux (the rule wg-quick(8) documents): while the tunnel is up, every
 * packet the host sends that does not leave through the tunnel interface (%i), is not the tunnel's
 * own encrypted traffic (marked with the interface's fwmark, which wg-quick sets for a full
 * tunnel) and is not for a local address is rejected, for IPv4 and IPv6. PreDown deletes exactly
 * what PostUp inserted. A host without ip6tables fails `wg-quick up` rather than leak IPv6.
 * It assumes the whole-tunnel AllowedIPs (wg-quick then sets the fwmark); with a split tunnel the
 * traffic meant to go around the tunnel is rejected too.
 */
export type KillSwitchFamily = 'iptables' | 'ip6tables';
export type KillSwitchRule = { family: KillSwitchFamily; action: 'insert' | 'delete' };

const MATCH = '! -o %i -m mark ! --mark $(wg show %i fwmark) -m addrtype ! --dst-type LOCAL -j REJECT';
const FAMILIES: readonly KillSwitchFamily[] = ['iptables', 'ip6tables'];
const RULE = /^(iptables|ip6tables) (-I|-D) OUTPUT (.+)$/;

function rule(family: KillSwitchFamily, action: 'insert' | 'delete'): string {
  return `${family} ${action === 'insert' ? '-I' : '-D'} OUTPUT ${MATCH}`;
}

/** The `[Interface]` lines: one PostUp and one PreDown per address family. */
export function killSwitchLines(): string[] {
  return [
    ...FAMILIES.map((family) => `PostUp = ${rule(family, 'insert')}`),
    ...FAMILIES.map((family) => `PreDown = ${rule(family, 'delete')}`),
  ];
}

/** Reads one hook command back: which table and whether it inserts or deletes the rule; null for anything else. */
export function parseKillSwitchRule(command: string): KillSwitchRule | null {
  const match = RULE.exec(command.trim());
  if (!match || match[3] !== MATCH) return null;
  return { family: match[1] as KillSwitchFamily, action: match[2] === '-I' ? 'insert' : 'delete' };
}

/**
 * Whether a config's hooks are the complete kill switch: PostUp inserts the rule for both families
 * and PreDown deletes both, with nothing else in either.
 */
export function hasKillSwitch(config: { postUp: readonly string[]; preDown: readonly string[] }): boolean {
  const covers = (commands: readonly string[], action: 'insert' | 'delete') => {
    const rules = commands.map(parseKillSwitchRule);
    if (rules.some((parsed) => parsed === null || parsed.action !== action)) return false;
    return FAMILIES.every((family) => rules.some((parsed) => parsed?.family === family));
  };
  return covers(config.postUp, 'insert') && covers(config.preDown, 'delete');
}

/**
 * A rendered config with the kill switch's lines added at the end of its [Interface] section
 * (before the first [Peer]); a config that has them already is returned as it is.
 */
export function addKillSwitch(config: string): string {
  if (
    config
      .split(/\r?\n/)
      .some(
        (line) =>
          /^\s*(postup|predown)\s*=/i.test(line) && parseKillSwitchRule(line.split('=').slice(1).join('=')) !== null,
      )
  )
    return config;
  const lines = config.split('\n');
  const peer = lines.findIndex((line) => /^\s*\[peer\]\s*$/i.test(line));
  if (peer < 0) throw new Error('config has no [Peer] section');
  let end = peer;
  while (end > 0 && lines[end - 1]!.trim() === '') end -= 1;
  lines.splice(end, 0, ...killSwitchLines());
  return lines.join('\n');
}
