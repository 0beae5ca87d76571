import { blockingCategories, blockingCategoryLabel, maxCustomRoutes } from '@qw/contracts';
import { Field, Select, TextArea } from '../../../ui';
import { isSplitTunnelPreset, type PrivacyChoice, splitTunnelOptions, withCategory } from '../utils/privacy-choice';

/**
 * Issue #25: a device's tunnel privacy. Content blocking: five categories, each on or off (the
 * node's resolver answers blocked names with nothing); a hint says the adult and gambling lists
 * are small hand-made ones (data/blocklists/README.md), so the boxes promise no more than that. Split tunnel: all traffic, all but local
 * networks, or only listed routes (typed one per line). The add forms and each device's details
 * use these fields; `label` names the device for screen readers where several are on a page.
 */
export function PrivacyFields({
  idPrefix,
  label,
  value,
  onChange,
  disabled = false,
  routesError,
}: {
  idPrefix: string;
  /** e.g. "for Laptop": appended to each control's accessible name. */
  label?: string;
  value: PrivacyChoice;
  onChange: (value: PrivacyChoice) => void;
  disabled?: boolean;
  routesError?: string | undefined;
}) {
  // The device's name is heard, not shown: its details already stand under its row.
  const suffix = label ? <span className="qw-visually-hidden"> {label}</span> : null;
  return (
    <div className="devices-privacy">
      <fieldset
        className="devices-privacy__blocking"
        disabled={disabled}
        aria-describedby={`${idPrefix}-blocking-hint`}
      >
        <legend className="qw-field__label">Block{suffix}</legend>
        <div className="devices-privacy__toggles">
          {blockingCategories.map((category) => (
            <label key={category} className="devices-privacy__toggle">
              <input
                type="checkbox"
                name={`${idPrefix}-blocking`}
                value={category}
                checked={value.blocking.includes(category)}
                onChange={(event) => onChange(withCategory(value, category, event.target.checked))}
              />
              {blockingCategoryLabel[category]}
            </label>
          ))}
        </div>
        {/* The lists behind each box (data/blocklists/README.md): the last two are small, say so. */}
        <p className="qw-field__hint" id={`${idPrefix}-blocking-hint`}>
          Adult content and gambling block only the best-known sites.
        </p>
      </fieldset>
      <Field id={`${idPrefix}-split`} label={<>Send through the tunnel{suffix}</>} className="devices-privacy__split">
        <Select
          name="split_tunnel"
          value={value.split}
          disabled={disabled}
          options={splitTunnelOptions}
          onChange={(event) =>
            isSplitTunnelPreset(event.target.value) && onChange({ ...value, split: event.target.value })
          }
        />
      </Field>
      {value.split === 'custom' && (
        <Field
          id={`${idPrefix}-routes`}
          label={<>Routes{suffix}</>}
          hint={`One network per line, such as 192.168.1.0/24 or 2001:db8::/32 (up to ${maxCustomRoutes}). DNS always goes through the tunnel.`}
          error={routesError}
          className="devices-privacy__routes"
        >
          <TextArea
            name="custom_routes"
            rows={3}
            spellCheck={false}
            autoCapitalize="off"
            autoComplete="off"
            disabled={disabled}
            value={value.routes}
            onChange={(event) => onChange({ ...value, routes: event.target.value })}
          />
        </Field>
      )}
    </div>
  );
}
