import { describe, expect, it } from 'vitest';
import { ensureRules, forwardingRules, type Exec } from '../src/forwarding.ts';

describe('forwarding rules (NODE_FORWARDING, NODE_EGRESS_INTERFACE)', () => {
  it('NATs the tunnel network out of every interface but the tunnel, or out of the one named', () => {
    expect(forwardingRules('wg0', '10.64.0.0/16')[0]).toEqual({
      table: 'nat',
      chain: 'POSTROUTING',
      spec: ['-s', '10.64.0.0/16', '!', '-o', 'wg0', '-j', 'MASQUERADE'],
    });
    expect(forwardingRules('wg0', '10.64.0.0/16', 'eth0')[0]?.spec).toEqual([
      '-s',
      '10.64.0.0/16',
      '-o',
      'eth0',
      '-j',
      'MASQUERADE',
    ]);
    // Peers do not reach each other through the node (client isolation), before anything accepts.
    expect(forwardingRules('wg0', '10.64.0.0/16')[1]?.spec).toEqual(['-i', 'wg0', '-o', 'wg0', '-j', 'DROP']);
  });

  it('checks each rule before inserting it: a second start adds nothing', async () => {
    const installed = new Set<string>();
    const calls: string[][] = [];
    const exec: Exec = async (command, args) => {
      calls.push([command, ...args]);
      const at = args.findIndex((word) => word === '-C' || word === '-I');
      const key = [args[3], ...args.slice(at + (args[at] === '-I' ? 3 : 2))].join(' ') + ` ${args[at + 1]}`;
      if (args[at] === '-C') {
        if (!installed.has(key)) throw new Error('no such rule');
        return '';
      }
      installed.add(key);
      return '';
    };
    const rules = forwardingRules('wg0', 'fd7a::/48');
    expect(await ensureRules(exec, 'ip6tables', rules)).toBe(4);
    expect(installed.size).toBe(4);
    // Inserted last first at position 1: the chain then reads in the listed order.
    expect(calls.filter((call) => call.includes('-I')).map((call) => call.at(-1))).toEqual([
      'ACCEPT',
      'ACCEPT',
      'DROP',
      'MASQUERADE',
    ]);
    expect(await ensureRules(exec, 'ip6tables', rules)).toBe(0);
    expect(installed.size).toBe(4);
  });
});
