import { fairUseDeviceCeiling } from '@qw/contracts';
import { Link } from 'react-router-dom';
import { useBilling } from '../../features/billing/api/get-billing';
import { inactiveDevicesText, planStanding } from '../../features/billing/utils/plan-standing';
import { DeviceAddForm } from '../../features/devices/components/device-add-form';
import { DevicesTable } from '../../features/devices/components/devices-table';
import '../../features/devices/devices.css';
import { Alert, Card, PageTitle, useToast } from '../../ui';

/** Honest about the mail: a key made in the browser never reaches the server, so nothing can be emailed. */
function addedToastText(name: string, keyInBrowser: boolean): string {
  return keyInBrowser
    ? `${name} added. Its key was made in this browser: save the configuration shown now, it is not emailed.`
    : `${name} added. Its configuration is on its way by email if your address is verified.`;
}

export default function PersonalDevicesRoute() {
  const toast = useToast();
  const billing = useBilling(null);
  // Only a plan known to be missing or ended blocks the controls; while unknown the server decides.
  const inactive = billing.isSuccess ? inactiveDevicesText(planStanding(billing.data.subscription)) : null;
  return (
    <div className="console-screen">
      <PageTitle
        title="Devices"
        description="Add your devices and connect them with a WireGuard config file or QR code."
      />
      <div className="console-screen__head">
        <h1>Devices</h1>
        <p className="qw-muted">
          Personal plans have unlimited devices (fair use: up to {fairUseDeviceCeiling} per account). Each device gets
          its own key; its configuration is also emailed to you.
        </p>
      </div>
      {inactive && (
        <div id="devices-plan-notice" data-testid="devices-plan-notice">
          <Alert tone="warning" announce={false} title="Your devices are inactive">
            <p>{inactive}</p>
            <p>
              <Link to="/app/personal/billing">Go to Billing</Link>
            </p>
          </Alert>
        </div>
      )}
      <Card as="section" aria-label="Add a device">
        <DeviceAddForm
          blockedReason={inactive ? 'Adding a device needs an active plan.' : undefined}
          onAdded={(name, keyInBrowser) => toast(addedToastText(name, keyInBrowser))}
        />
      </Card>
      <DevicesTable activateBlocked={inactive ? { describedBy: 'devices-plan-notice' } : undefined} />
    </div>
  );
}
