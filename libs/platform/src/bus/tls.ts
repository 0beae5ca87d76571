import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export type NatsTlsFiles = {
  /** What clients verify the server with (NATS_CA_FILE). */
  caFile: string;
  certFile: string;
  keyFile: string;
};

/**
 * A CA of this machine and a NATS server certificate it signed, for `make dev` (var/nats/tls, made
 * on first run and kept) and the tests' servers: clients dial 127.0.0.1 or localhost, so those are
 * the names the certificate holds. Production's come from the operator's own CA (docs/architecture.md,
 * "Who may say what on the bus"); the CA's key never leaves the machine that made it.
 */
export function ensureNatsCertificates(dir: string, options: { hosts?: string[]; days?: number } = {}): NatsTlsFiles {
  const files = {
    caFile: path.join(dir, 'ca.pem'),
    certFile: path.join(dir, 'server.pem'),
    keyFile: path.join(dir, 'server-key.pem'),
  };
  if (Object.values(files).every((file) => existsSync(file))) return files;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const hosts = options.hosts ?? ['localhost', '127.0.0.1'];
  const days = String(options.days ?? 825);
  const caKey = path.join(dir, 'ca-key.pem');
  const request = path.join(dir, 'server.csr');
  const extensions = path.join(dir, 'server.ext');
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  openssl(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    caKey,
    '-out',
    files.caFile,
    '-days',
    days,
    '-subj',
    '/CN=Quietwire NATS CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  );
  openssl('req', ...ec, '-keyout', files.keyFile, '-out', request, '-subj', `/CN=${hosts[0]}`);
  const names = hosts.map((host) => (/^[\d.]+$|:/.test(host) ? `IP:${host}` : `DNS:${host}`));
  writeFileSync(
    extensions,
    [
      `subjectAltName=${names.join(',')}`,
      'basicConstraints=critical,CA:FALSE',
      'keyUsage=critical,digitalSignature',
      'extendedKeyUsage=serverAuth',
      '',
    ].join('\n'),
  );
  openssl(
    'x509',
    '-req',
    '-in',
    request,
    '-CA',
    files.caFile,
    '-CAkey',
    caKey,
    '-CAcreateserial',
    '-out',
    files.certFile,
    '-days',
    days,
    '-extfile',
    extensions,
  );
  return files;
}
