import { sql, type Kysely } from 'kysely';
import { userVerified } from '@qw/contracts';
import { consumer } from '@qw/platform';
import type { ProvisioningDatabase } from '../database.ts';
import { configMailKind } from '../device-events/config-mail-job.ts';

/**
 * A person confirmed their address: the configuration mails of devices they added before, which
 * waited for it (the renderer answers `mailNotYet` for an address not confirmed), are due now.
 * The service wakes its mail queue after this commits.
 */
export const userVerifiedConsumer = consumer(
  'provisioning.user-verified',
  userVerified,
  async (tx: Kysely<ProvisioningDatabase>, { data }) => {
    await sql`update mail_jobs set next_attempt_at = now()
              where kind = ${configMailKind} and sent_at is null and given_up_at is null
                and payload->>'deviceId' in (select id::text from devices where user_id = ${data.userId})`.execute(tx);
  },
);
