import { deviceNameMaxLength, normalizeDeviceName } from '@qw/contracts';
import { useRef, useState } from 'react';
import { isApiError } from '../../../lib/api-client';
import { useUpdateDevice } from '../api/update-device';

/**
 * Spec §2: the name is edited in place (an underlined field with a pencil button that focuses it, so
 * it reads as editable; Enter saves, Esc puts the old name back) and saved on blur when it is non-empty and changed after trimming
 * (the contracts' `normalizeDeviceName`, which the server applies too).
 */
export function DeviceNameCell({
  id,
  name,
  onError,
}: {
  id: string;
  name: string;
  onError: (message: string) => void;
}) {
  const [value, setValue] = useState(name);
  const update = useUpdateDevice();
  const inputRef = useRef<HTMLInputElement>(null);

  function save() {
    const next = normalizeDeviceName(value);
    if (!next || next === name) {
      setValue(name);
      return;
    }
    update.mutate(
      { id, name: next },
      {
        onError: (failure) => {
          setValue(name);
          onError(isApiError(failure) ? failure.message : 'We couldn’t rename the device.');
        },
      },
    );
  }

  return (
    <div className="devices-name">
      <input
        ref={inputRef}
        className="devices-name__input"
        aria-label={`Name of ${name}`}
        title="Edit the name; it is saved when you leave the field"
        value={value}
        maxLength={deviceNameMaxLength}
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
      <button
        type="button"
        className="devices-name__edit"
        aria-label={`Rename ${name}`}
        title="Rename"
        disabled={update.isPending}
        onClick={() => {
          inputRef.current?.focus();
          inputRef.current?.select();
        }}
      >
        <svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false">
          <path
            d="M11.3 1.7a1.6 1.6 0 0 1 2.3 0l.7.7a1.6 1.6 0 0 1 0 2.3L5.6 13.4 2 14l.6-3.6 8.7-8.7Zm-7.2 9.3-.3 1.3 1.3-.3 6.9-6.9-1-1-6.9 6.9Z"
            fill="currentColor"
          />
        </svg>
      </button>
    </div>
  );
}
