import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import { AppError } from '@qw/contracts';
import {
  BusIdentities,
  keepRevocations,
  mergeRevocations,
  pushAccountJwtTo,
  readBusKeys,
  readRevocations,
  type BusIdentity,
  type Revocations,
} from '@qw/platform/bus';

export type NodeBusSettings = {
  /** The bus identity folder (keys.json, revocations.json): BUS_IDENTITY_DIR. */
  identityDir?: string | undefined;
  /** Where provisioning reaches the servers (NATS_URL) and how it trusts them (NATS_CA_FILE). */
  natsUrl: string;
  caFile?: string | undefined;
  /** What an enrolled node is told: NODE_BUS_URL (NATS_URL by default), the CA's PEM and BUS_NAMESPACE. */
  nodeBusUrl?: string | undefined;
  namespace?: string | undefined;
};

/**
 * The node users of the bus as provisioning manages them: issued at a host's enrolment (signed
 * with the account's signing key from the identity folder, read at each use so a rotated key is
 * taken up without a restart) and revoked when a node is retired, by pushing the account JWT to
 * the servers as the system user. The account JWT always carries the folder's revocations and
 * every revocation the database holds, so no push ever undoes an earlier one; what is pushed is
 * also added to the folder's revocations.json, so the operator's script keeps it too.
 */
export class NodeBusUsers {
  constructor(
    private readonly settings: NodeBusSettings,
    private readonly logger: Logger,
  ) {}

  private folder(): string {
    const folder = this.settings.identityDir;
    if (!folder)
      throw new AppError(
        'unavailable',
        'Enrolment is not set up on this control plane: provisioning has no bus identity folder (BUS_IDENTITY_DIR).',
      );
    return folder;
  }

  /** A new user for the node, scoped to its own subjects and consumer. */
  issue(nodeName: string): Promise<BusIdentity> {
    const folder = this.folder();
    return new BusIdentities(readBusKeys(folder), readRevocations(folder)).issueNode(nodeName);
  }

  /** What an enrolled host needs to reach the bus. */
  busFor(creds: string) {
    const { caFile, nodeBusUrl, natsUrl, namespace } = this.settings;
    return {
      url: nodeBusUrl ?? natsUrl,
      creds,
      ca: caFile ? readFileSync(caFile, 'utf8') : null,
      namespace: namespace ?? '',
    };
  }

  /**
   * Pushes the account JWT with every revocation (the database's and the folder's) to the servers:
   * they close the revoked users' connections at once and refuse them from then on. Answers once
   * a server applied it.
   */
  async pushRevocations(fromDatabase: Revocations): Promise<void> {
    const folder = this.folder();
    const revocations = mergeRevocations(readRevocations(folder), fromDatabase);
    const identities = new BusIdentities(readBusKeys(folder), revocations);
    try {
      await pushAccountJwtTo(
        { url: this.settings.natsUrl, caFile: this.settings.caFile },
        identities,
        await identities.accountJwt(),
      );
    } catch (error) {
      this.logger.error({ err: error }, 'the bus did not take the revocation');
      throw new AppError('unavailable', 'The bus did not take the revocation; nothing was changed. Try again.');
    }
    try {
      keepRevocations(folder, fromDatabase);
    } catch (error) {
      // A read-only folder: the database keeps them, and every later push carries them.
      this.logger.warn({ err: error }, 'revocations.json not updated');
    }
  }
}
