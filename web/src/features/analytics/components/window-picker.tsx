import { windowLabel } from '@qw/contracts';
import { Select } from '../../../ui';

/** The windows a tile offers (spec §9), named as `windowLabel` names them: 'Today', '7 days', 'Quarter'… */
export function WindowPicker({
  label,
  windows,
  value,
  onChange,
}: {
  /** The accessible name, e.g. 'Revenue window'. */
  label: string;
  windows: readonly number[];
  value: number;
  onChange: (days: number) => void;
}) {
  return (
    <Select
      className="analytics-window"
      aria-label={label}
      value={String(value)}
      onChange={(event) => onChange(Number(event.target.value))}
      options={windows.map((days) => ({ value: String(days), label: windowLabel(days) }))}
    />
  );
}
