import { purchaseClaimed } from '@qw/contracts';
import { consumer } from '@qw/platform';
import { applyPurchaseClaim } from '../organizations/organizations.service.ts';

export const purchaseClaimedConsumer = consumer('identity.purchase-claimed', purchaseClaimed, applyPurchaseClaim);
