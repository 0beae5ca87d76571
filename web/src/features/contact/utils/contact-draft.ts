import type { ContactValues } from './validate-contact-message';

const draftKey = 'quietwire.contact-draft';
const empty: ContactValues = { email: '', message: '' };

/** The unsent message survives a reload of the tab (sessionStorage; nothing leaves the browser). */
export function loadContactDraft(): ContactValues {
  try {
    const raw = window.sessionStorage.getItem(draftKey);
    if (!raw) return empty;
    const parsed = JSON.parse(raw) as Partial<ContactValues>;
    return {
      email: typeof parsed.email === 'string' ? parsed.email : '',
      message: typeof parsed.message === 'string' ? parsed.message : '',
    };
  } catch {
    return empty;
  }
}

export function saveContactDraft(values: ContactValues): void {
  try {
    if (values.email === '' && values.message === '') window.sessionStorage.removeItem(draftKey);
    else window.sessionStorage.setItem(draftKey, JSON.stringify(values));
  } catch {
    // Storage can be full or disabled; the form still works without a draft.
  }
}

export function clearContactDraft(): void {
  saveContactDraft(empty);
}
