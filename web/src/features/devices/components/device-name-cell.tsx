import { useState } from 'react';
import { isApiError } from '../../../lib/api-client';
import { useUpdateDevice } from '../api/update-device';

/** Spec §2: the name is edited in place and saved on blur when it is non-empty and changed after trimming. */
export function DeviceNameCell({ id, name, onError }: { id: string; name: string; onError: (message: string) => void }) {
  const [value, setValue] = useState(name);
  const update = useUpdateDevice();

  function save() {
    const next = value.trim();
    if (!next || next === name) {
      setValue(name);
      return;
    }
    update.mutate({ id, name: next }, {
      onError: (failure) => {
        setValue(name);
        onError(isApiError(failure) ? failure.message : 'We couldn’t rename the device.');
      },
    });
  }

  return (
    <input
      className="devices-name"
      aria-label={`Name of ${name}`}
      value={value}
      maxLength={64}
      disabled={update.isPending}
      onChange={(event) => setValue(event.target.value)}
      onBlur={save}
      onKeyDown={(event) => {
        if (event.key === 'Enter') event.currentTarget.blur();
        if (event.key === 'Escape') {
          setValue(name);
          event.currentTarget.blur();
        }
      }}
    />
  );
}
