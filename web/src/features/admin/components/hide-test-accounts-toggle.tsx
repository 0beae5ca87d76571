import './admin.css';
import { setHideTestAccounts, useHideTestAccounts } from '../hide-test-accounts';

/** Issue #26: the console-wide switch that leaves test accounts out of the figures and lists. */
export function HideTestAccountsToggle() {
  const hide = useHideTestAccounts();
  return (
    <label className="console__tab-extra admin-hide-test">
      <input type="checkbox" checked={hide} onChange={(event) => setHideTestAccounts(event.target.checked)} />
      Hide test accounts
    </label>
  );
}
