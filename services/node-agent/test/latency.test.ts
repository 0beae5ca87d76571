import { describe, expect, it } from 'vitest';
import { parsePingRtt, probeAll, probeTargets, tunnelAddress } from '../src/latency.ts';

const key = (n: number) => `${String(n).padStart(43, 'k')}=`;

describe('latency through the tunnel', () => {
  it('reads the round trip of iputils and busybox ping, and nothing from a run without a reply', () => {
    expect(
      parsePingRtt(
        '--- 10.64.0.2 ping statistics ---\n1 packets transmitted, 1 received, 0% packet loss, time 0ms\nrtt min/avg/max/mdev = 0.512/0.734/0.901/0.100 ms\n',
      ),
    ).toBe(0.734);
    expect(parsePingRtt('round-trip min/avg/max = 12.1/12.5/13.0 ms')).toBe(12.5);
    expect(parsePingRtt('1 packets transmitted, 0 received, 100% packet loss, time 0ms')).toBeNull();
    expect(parsePingRtt('')).toBeNull();
  });

  it("probes the device's /32 only", () => {
    expect(tunnelAddress(['10.64.0.7/32', 'fd7a:5157:7769::7/128'])).toBe('10.64.0.7');
    expect(tunnelAddress(['fd7a:5157:7769::7/128'])).toBeNull();
    expect(tunnelAddress(['10.64.0.0/16'])).toBeNull();
  });

  it('probes only peers with a recent handshake, at most max per round, each in turn', () => {
    const now = 1_000_000;
    const peers = [1, 2, 3, 4, 5].map((n) => ({
      publicKey: key(n),
      allowedIps: [`10.64.0.${n}/32`],
      latestHandshake: n === 5 ? now - 181 : now - 10,
    }));
    const first = probeTargets(peers, now, 3, 0);
    expect(first.targets.map((t) => t.address)).toEqual(['10.64.0.1', '10.64.0.2', '10.64.0.3']);
    const second = probeTargets(peers, now, 3, first.nextOffset);
    expect(second.targets.map((t) => t.address)).toEqual(['10.64.0.4', '10.64.0.1', '10.64.0.2']);
    expect(probeTargets(peers, now, 0, 0).targets).toEqual([]);
    expect(probeTargets(peers, now, 10, 0).targets).toHaveLength(4);
  });

  it('keeps a failed probe as null, never a number', async () => {
    const results = await probeAll(
      [
        { publicKey: key(1), address: '10.64.0.1' },
        { publicKey: key(2), address: '10.64.0.2' },
        { publicKey: key(3), address: '10.64.0.3' },
      ],
      async (address) => {
        if (address.endsWith('.2')) throw new Error('boom');
        return address.endsWith('.1') ? 1.5 : null;
      },
      2,
    );
    expect(Object.fromEntries(results)).toEqual({ [key(1)]: 1.5, [key(2)]: null, [key(3)]: null });
  });
});
