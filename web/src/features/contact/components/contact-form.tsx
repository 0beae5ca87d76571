import {
  contactEmailMaxLength,
  contactMessageBodyMaxLength,
  contactMessageLength,
  contactMessageMaxLength,
} from '@qw/contracts';
import { useEffect, useLayoutEffect, useRef, useState, type ChangeEvent, type FormEvent } from 'react';
import { hasErrorCode, isApiError } from '../../../lib/api-client';
import { Alert, Button, Field, Input, TextArea } from '../../../ui';
import { useSendContactMessage } from '../api/send-contact-message';
import { clearContactDraft, loadContactDraft, saveContactDraft } from '../utils/contact-draft';
import {
  isContactField,
  messageLengthHint,
  validateContactMessage,
  validateEmail,
  validateMessage,
  type ContactErrors,
  type ContactField,
  type ContactValues,
} from '../utils/validate-contact-message';
import './contact.css';

export const contactSentMessage = 'Thanks — your message is on its way. We answer by email, usually within a day.';
export const contactFailedMessage =
  'We couldn’t send your message. Everything you wrote is still here; please try again in a moment.';

type Outcome = { tone: 'success' | 'error'; text: string } | null;

const fieldIds: Record<ContactField, string> = { email: 'contact-email', message: 'contact-message' };

/** The form's values until the draft has been read (never saved: that would erase the draft). */
const beforeDraft: ContactValues = { email: '', message: '' };

export function ContactForm() {
  const [values, setValues] = useState<ContactValues>(beforeDraft);
  const [errors, setErrors] = useState<ContactErrors>({});
  const [outcome, setOutcome] = useState<Outcome>(null);
  const send = useSendContactMessage();
  const outcomeRef = useRef<HTMLDivElement>(null);

  // The draft is read after the first render, before the browser paints: /support is prerendered,
  // and its first render must be the markup built without any visitor's draft, to hydrate on it.
  useLayoutEffect(() => {
    const draft = loadContactDraft();
    if (draft.email !== '' || draft.message !== '') setValues(draft);
  }, []);

  useEffect(() => {
    if (values !== beforeDraft) saveContactDraft(values);
  }, [values]);

  useEffect(() => {
    if (outcome) outcomeRef.current?.focus();
  }, [outcome]);

  function focusField(field: ContactField) {
    document.getElementById(fieldIds[field])?.focus();
  }

  function onChange(field: ContactField) {
    return (event: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => {
      const value = event.target.value;
      setValues((current) => ({ ...current, [field]: value }));
      // Once a field has shown an error, re-check it as the visitor fixes it.
      if (errors[field])
        setErrors((current) => ({
          ...current,
          [field]: field === 'email' ? validateEmail(value) : validateMessage(value),
        }));
      if (outcome?.tone === 'success') setOutcome(null);
    };
  }

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (send.isPending) return;
    const found = validateContactMessage(values);
    setErrors(found);
    setOutcome(null);
    const firstInvalid = (['email', 'message'] as const).find((field) => found[field]);
    if (firstInvalid) {
      focusField(firstInvalid);
      return;
    }
    send.mutate(
      { email: values.email.trim(), message: values.message.trim() },
      {
        onSuccess: () => {
          setValues({ email: '', message: '' });
          clearContactDraft();
          setOutcome({ tone: 'success', text: contactSentMessage });
        },
        onError: (error) => {
          if (hasErrorCode(error, 'validation_failed') && isContactField(error.details?.field)) {
            const field = error.details.field;
            setErrors({ [field]: error.message });
            focusField(field);
          } else if (isApiError(error) && error.status >= 400 && error.status < 500) {
            setOutcome({ tone: 'error', text: error.message });
          } else {
            setOutcome({ tone: 'error', text: contactFailedMessage });
          }
        },
      },
    );
  }

  const length = contactMessageLength(values.message);

  return (
    <form className="ct-form" onSubmit={onSubmit} noValidate aria-labelledby="contact-form-title">
      <h2 id="contact-form-title" className="qw-card__title">
        Send us a message
      </h2>
      {outcome && (
        <Alert ref={outcomeRef} tone={outcome.tone}>
          {outcome.text}
        </Alert>
      )}
      <Field id={fieldIds.email} label="Your email" error={errors.email} hint="We answer to this address." required>
        <Input
          type="email"
          name="email"
          autoComplete="email"
          inputMode="email"
          maxLength={contactEmailMaxLength}
          value={values.email}
          onChange={onChange('email')}
        />
      </Field>
      <Field id={fieldIds.message} label="Message" error={errors.message} hint={messageLengthHint} required>
        <TextArea
          name="message"
          rows={8}
          maxLength={contactMessageBodyMaxLength}
          value={values.message}
          onChange={onChange('message')}
        />
      </Field>
      <p className={length > contactMessageMaxLength ? 'ct-count ct-count--over' : 'ct-count'} aria-hidden="true">
        {length.toLocaleString('en-US')} / {contactMessageMaxLength.toLocaleString('en-US')}
      </p>
      <div>
        <Button type="submit" busy={send.isPending} busyText="Sending…">
          Send
        </Button>
      </div>
    </form>
  );
}
