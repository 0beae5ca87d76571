import type { Kysely } from 'kysely';
import type { IdentityDatabase } from '../database.ts';
import { purchaseClaimed } from '@qw/contracts';
import { consumer } from '@qw/platform';
import { applyPurchaseClaim } from '../organizations/organizations.service.ts';

export const purchaseClaimedConsumer = consumer('identity.purchase-claimed', purchaseClaimed, (tx, event) => applyPurchaseClaim(tx as unknown as Kysely<IdentityDatabase>, event));
