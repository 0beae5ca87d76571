import { Card } from '../../../ui';
import { ChangePassword } from './change-password';
import { TwoFactorSettings } from './two-factor-card';

/** The Account tab's Security card: two-factor sign-in and the password. */
export function SecurityCard() {
  return (
    <Card as="section" aria-labelledby="security-title">
      <h2 id="security-title" className="qw-card__title">
        Security
      </h2>
      <TwoFactorSettings />
      <hr className="account-rule" />
      <ChangePassword />
    </Card>
  );
}
