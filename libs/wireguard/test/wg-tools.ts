/** The real `wg` / `wg-quick` as oracles, when installed (apt-get install wireguard-tools). */
import { execFileSync, spawnSync } from 'node:child_process';

function installed(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' }).status === 0;
}

export const hasWg = installed('wg');
export const hasWgQuick = installed('wg-quick') && installed('bash');

export function warnIfMissing(tool: string, present: boolean): void {
  if (!present)
    console.warn(`${tool} is not installed; tests that compare with it are skipped (apt-get install wireguard-tools)`);
}

export function wgPubkey(privateKey: string): string {
  return execFileSync('wg', ['pubkey'], { input: `${privateKey}\n`, encoding: 'utf8' }).trim();
}

export function wgGenkey(): string {
  return execFileSync('wg', ['genkey'], { encoding: 'utf8' }).trim();
}
