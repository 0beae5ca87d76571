import { DeviceAddForm } from '../../features/devices/components/device-add-form';
import { DevicesTable } from '../../features/devices/components/devices-table';
import '../../features/devices/devices.css';
import { Card, PageTitle, useToast } from '../../ui';

export default function PersonalDevicesRoute() {
  const toast = useToast();
  return (
    <div className="console-screen">
      <PageTitle title="Devices" description="Add your devices and connect them with a WireGuard config file or QR code." />
      <div className="console-screen__head">
        <h1>Devices</h1>
        <p className="qw-muted">Personal plans have unlimited devices. Each device gets its own key; its configuration is also emailed to you.</p>
      </div>
      <Card as="section" aria-label="Add a device">
        <DeviceAddForm onAdded={(name) => toast(`${name} added. Its configuration is on its way by email if your address is verified.`)} />
      </Card>
      <DevicesTable />
    </div>
  );
}
