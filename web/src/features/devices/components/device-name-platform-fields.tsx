import { deviceNameMaxLength, platformLabels, platforms } from '@qw/contracts';
import { Field, Input, Select } from '../../../ui';

const platformOptions = platforms.map((p) => ({ value: p, label: platformLabels[p] }));

/**
 * The name and platform fields every add-a-device form starts with (spec §5: personal and
 * business). `idPrefix` keeps the labels' ids apart when both forms could share a page.
 */
export function DeviceNameAndPlatformFields({
  idPrefix,
  name,
  onNameChange,
  platform,
  onPlatformChange,
}: {
  idPrefix: string;
  name: string;
  onNameChange: (name: string) => void;
  platform: string;
  onPlatformChange: (platform: string) => void;
}) {
  return (
    <>
      <Field id={`${idPrefix}-name`} label="Name">
        <Input
          name="name"
          maxLength={deviceNameMaxLength}
          placeholder="e.g. Work laptop"
          value={name}
          onChange={(event) => onNameChange(event.target.value)}
        />
      </Field>
      <Field id={`${idPrefix}-platform`} label="Platform">
        <Select
          name="platform"
          value={platform}
          onChange={(event) => onPlatformChange(event.target.value)}
          options={platformOptions}
        />
      </Field>
    </>
  );
}
