import { renderClientConfig } from '@qw/wireguard/config-file';
import { getPeerInfo } from './get-peer-info';

export type BrowserKeyConfig = { fileName: string; config: string };

/** The wg-quick file, written here from the server's half and the private key this page holds. */
export async function assembleConfig(
  deviceId: string,
  deviceName: string,
  privateKey: string,
): Promise<BrowserKeyConfig> {
  const peer = await getPeerInfo(deviceId);
  const config = renderClientConfig({
    deviceName,
    privateKey,
    addresses: peer.addresses,
    dns: peer.dns,
    serverPublicKey: peer.server_public_key,
    presharedKey: peer.preshared_key,
    endpoint: peer.endpoint,
    allowedIps: peer.allowed_ips,
  });
  return { fileName: peer.file_name, config };
}
