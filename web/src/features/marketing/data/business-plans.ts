import { plans } from '@qw/contracts';

/** The business plans' numbers as the copy says them, from the plan catalog (spec §9), never retyped. */
const businessPlans = plans.filter((plan) => plan.accountType === 'business');

/** '10, 50 or 250'. */
function orList(values: readonly (number | null)[]): string {
  const words = values.map(String);
  return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
}

export const businessDeviceQuotas = orList(businessPlans.map((plan) => plan.devices));
export const businessUserCaps = orList(businessPlans.map((plan) => plan.userCap));
export const largestBusinessQuota = Math.max(...businessPlans.map((plan) => plan.devices ?? 0));
