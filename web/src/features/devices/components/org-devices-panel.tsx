import {
  assigneeQuotaRefusalText,
  assigneeQuotaText,
  normalizeDeviceName,
  orgDevicePageSizes,
  type Platform,
  type RegionChoice,
} from '@qw/contracts';
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { failureMessage } from '../../../lib/api-client';
import { Alert, Button, Card, Field, Select, type TableColumn } from '../../../ui';
import { DeviceNameAndPlatformFields } from './device-name-platform-fields';
import { useCreateOrgDevice } from '../api/create-org-device';
import type { DeviceRow } from '../api/get-devices';
import { useOrgDevices } from '../api/get-org-devices';
import { FilterSelect, Pager, SearchForm } from '../../admin/components/list-controls';
import { assigneeDeviceCount, canAddOrgDevice } from '../utils/org-device-rules';
import { DeviceTable } from './devices-table';
import { browserCountry, CountryNote, RegionFields } from './region-fields';
import { regionBody } from '../utils/region-choice';
import { defaultPrivacyChoice, privacyBody } from '../utils/privacy-choice';
import { PrivacyOptions } from './privacy-options';

/** Spec §9 default platform of the business add form. */
const defaultPlatform: Platform = 'linux';

/** An organization user as the assignee picker and the Assignee column name them. */
export type Assignee = { user_id: string; label: string };

export type OrgDevicesPanelProps = {
  orgId: string;
  /** The signed-in person. */
  selfId: string;
  /** Owners and admins: every organization user to pick from (spec §6); anyone else: null, no picker. */
  assignees: readonly Assignee[] | null;
  /** An owner or admin: lifts suspensions made at the organization's level on others' devices. */
  manages: boolean;
  onAdded?: (name: string) => void;
  /**
   * The organization is Suspended: Add and Activate are disabled; `reason` is shown under Add and
   * Activate points to the element `describedBy` names.
   */
  blocked?: { reason: string; describedBy: string } | undefined;
};

/**
 * Spec §2/§5 business Devices: the assignee quota text ('n/5'), the add form (name, platform
 * defaulting to linux, an assignee picker for owners and admins only, the region and for Automatic
 * the person's country (issue #23), privacy options (issue #25); Add enabled only with a name,
 * an organization, no request in flight and fewer than 5 devices for the assignee; the server's
 * refusal in red under the form) and the table. At the limit the server's own words stand by the
 * Add button, before anyone tries (issue #26).
 */
export function OrgDevicesPanel({ orgId, selfId, assignees, manages, onAdded, blocked }: OrgDevicesPanelProps) {
  // The list comes in pages from the server (issue #24), newest first; by person and name.
  const [page, setPage] = useState(1);
  const [perPage, setPerPage] = useState<number>(orgDevicePageSizes.default);
  const [search, setSearch] = useState('');
  const [person, setPerson] = useState('');
  const devices = useOrgDevices(orgId, {
    page,
    per_page: perPage,
    ...(search ? { q: search } : {}),
    ...(person ? { assignee_id: person } : {}),
  });
  const shown = devices.data;
  // Removing the last devices of the last page: show the page that now is the last.
  useEffect(() => {
    if (shown && shown.devices.length === 0 && shown.page > 1 && shown.total > 0)
      setPage(Math.ceil(shown.total / shown.per_page));
  }, [shown]);
  const create = useCreateOrgDevice();
  const [name, setName] = useState('');
  const [platform, setPlatform] = useState<string>(defaultPlatform);
  const [assigneeId, setAssigneeId] = useState(selfId);
  const [region, setRegion] = useState<RegionChoice>('auto');
  const [country, setCountry] = useState(browserCountry);
  const [privacy, setPrivacy] = useState(defaultPrivacyChoice);
  const [error, setError] = useState<string | null>(null);

  const quota = devices.data?.quota;
  const perAssignee = quota?.per_assignee;
  const byAssignee = quota?.by_assignee ?? {};
  const count = assigneeDeviceCount(byAssignee, assigneeId);
  const names = useMemo(() => new Map((assignees ?? []).map((a) => [a.user_id, a.label])), [assignees]);
  const assigneeName = assigneeId === selfId ? 'You' : (names.get(assigneeId) ?? 'This person');
  const enabled =
    !blocked &&
    devices.isSuccess &&
    canAddOrgDevice({ name, orgId, pending: create.isPending, assigneeCount: count, perAssignee });
  const full = devices.isSuccess && count >= (perAssignee ?? Number.POSITIVE_INFINITY);
  const limitText = assigneeQuotaRefusalText(count, assigneeId === selfId);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!enabled) return;
    setError(null);
    create.mutate(
      {
        orgId,
        name: normalizeDeviceName(name),
        platform,
        ...regionBody(region, country),
        ...privacyBody(privacy),
        ...(assignees && assigneeId !== selfId ? { assignee_id: assigneeId } : {}),
      },
      {
        onSuccess: ({ device }) => {
          setName('');
          // Newest first: the new device is at the top of the first page.
          setPage(1);
          setPrivacy(defaultPrivacyChoice);
          onAdded?.(device.name);
        },
        onError: (failure) => setError(failureMessage(failure, 'We couldn’t add the device. Please try again.')),
      },
    );
  }

  /** Where the list stands, Previous/Next and the page size: above the table and again below it. */
  const pager = (navLabel: string, below = false) =>
    shown && (shown.total > 0 || search || person) ? (
      <Pager
        label="devices"
        navLabel={navLabel}
        page={shown}
        busy={devices.isPlaceholderData}
        onPage={(next) => {
          setPage(next);
          // From below the list, the next page is read from its top.
          if (below) document.getElementById('org-devices-list')?.scrollIntoView({ block: 'start' });
        }}
        onPerPage={(size) => {
          setPerPage(size);
          setPage(1);
        }}
      />
    ) : null;

  const assigneeColumn: TableColumn<DeviceRow> = {
    key: 'assignee',
    header: 'Assignee',
    cell: (d) => (d.user_id === selfId ? 'You' : (names.get(d.user_id) ?? '—')),
    sortValue: (d) => (d.user_id === selfId ? '' : (names.get(d.user_id) ?? '')),
  };

  return (
    <>
      <Card as="section" aria-labelledby="org-devices-add-title">
        <h2 id="org-devices-add-title" className="qw-card__title">
          Add a device
        </h2>
        <form className="devices-add" onSubmit={onSubmit} noValidate aria-label="Add a device">
          <div className="devices-add__fields">
            <DeviceNameAndPlatformFields
              idPrefix="org-device"
              name={name}
              onNameChange={setName}
              platform={platform}
              onPlatformChange={setPlatform}
            />
            {assignees && (
              <Field id="org-device-assignee" label="Assignee" className="devices-add__assignee">
                <Select
                  name="assignee"
                  value={assigneeId}
                  onChange={(event) => setAssigneeId(event.target.value)}
                  options={assignees.map((a) => ({
                    value: a.user_id,
                    label: `${a.user_id === selfId ? `${a.label} (you)` : a.label} — ${assigneeQuotaText(
                      assigneeDeviceCount(byAssignee, a.user_id),
                    )}`,
                  }))}
                />
              </Field>
            )}
            <RegionFields
              idPrefix="org-device"
              region={region}
              onRegionChange={setRegion}
              country={country}
              onCountryChange={setCountry}
            />
            <Button
              type="submit"
              busy={create.isPending}
              busyText="Adding…"
              disabled={!enabled}
              aria-describedby={blocked ? 'org-device-add-blocked' : full ? 'org-device-limit' : undefined}
            >
              Add
            </Button>
          </div>
          <CountryNote idPrefix="org-device" region={region} />
          <PrivacyOptions idPrefix="org-device" value={privacy} onChange={setPrivacy} />
          {full && !blocked && (
            <div id="org-device-limit" data-testid="device-limit">
              <Alert tone="warning">{limitText}</Alert>
            </div>
          )}
          {blocked && (
            <p className="qw-muted qw-small" id="org-device-add-blocked" data-testid="device-add-blocked">
              {blocked.reason}
            </p>
          )}
          <p className="qw-small" data-testid="assignee-quota">
            {assigneeId === selfId ? 'Your organization devices' : `Organization devices of ${assigneeName}`}:{' '}
            <strong>{assigneeQuotaText(count)}</strong>
          </p>
          {quota && quota.device_cap !== null && (
            <p className="qw-small qw-muted" data-testid="org-device-count">
              The organization has {quota.devices} of {quota.device_cap} devices on its plan.
            </p>
          )}
          {error && !(full && error === limitText) && (
            <p className="devices-error" role="alert">
              {error}
            </p>
          )}
        </form>
      </Card>
      <div className="org-devices-filters" id="org-devices-list">
        <SearchForm
          label="Search devices"
          placeholder="A part of the name"
          value={search}
          onSearch={(q) => {
            setSearch(q);
            setPage(1);
          }}
        />
        {assignees && (
          <FilterSelect
            label="Devices of"
            allLabel="Everyone"
            value={person}
            options={assignees.map((a) => ({ value: a.user_id, label: a.user_id === selfId ? 'You' : a.label }))}
            onChange={(value) => {
              setPerson(value);
              setPage(1);
            }}
          />
        )}
      </div>
      {pager('Pages of devices')}
      <DeviceTable
        caption="Organization devices"
        rows={devices.data?.devices}
        loading={devices.isPending}
        failed={devices.isError}
        failedText={failureMessage(
          devices.error,
          'We couldn’t load the organization’s devices. We’ll try again in a moment.',
        )}
        emptyText={
          search || person
            ? 'No organization devices match this search.'
            : 'No organization devices yet. Add one above, then scan its QR code in the WireGuard app.'
        }
        extraColumns={assignees ? [assigneeColumn] : []}
        activateBlocked={blocked ? { describedBy: blocked.describedBy } : undefined}
        viewerLevel={(d) => (manages && d.user_id !== selfId ? 'organization' : 'person')}
      />
      {pager('Pages of devices, below the list', true)}
    </>
  );
}
