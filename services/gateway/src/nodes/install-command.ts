/**
 * The one line an operator runs on a new server's host (as root): it fetches the install script
 * from this gateway and runs it with the token. The token is base64url, so it needs no quoting.
 */
export function nodeInstallCommand(publicUrl: string, token: string): string {
  const control = publicUrl.replace(/\/+$/, '');
  return `curl -fsSL ${control}/node-install.sh | sudo bash -s -- --token ${token} --control ${control}`;
}
