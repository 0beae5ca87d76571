import { useEffect, useState, type FormEvent } from 'react';
import { failureMessage } from '../../../lib/api-client';
import { useAuth } from '../../../lib/auth/auth-provider';
import { Button, Card, Field, Input } from '../../../ui';
import { useUpdateProfile } from '../api/update-profile';
import './account.css';

/** Spec §9: the account save message clears after 2000 ms. */
export const savedMessageMs = 2000;
export const savedMessage = 'Saved';
const saveFailedMessage = 'We couldn’t save your profile. Please try again in a moment.';

/** Spec §2 Account: Full name and Avatar URL with a Save button; the error message in red, or 'Saved' for 2 seconds. */
export function ProfileForm() {
  const { profile, me, notifyUserUpdated } = useAuth();
  const update = useUpdateProfile();
  const [fullName, setFullName] = useState('');
  const [avatarUrl, setAvatarUrl] = useState('');
  const [loadedFor, setLoadedFor] = useState<string | null>(null);
  const [message, setMessage] = useState<{ tone: 'saved' | 'error'; text: string } | null>(null);

  // Fill the fields once the profile arrives (and again for another person).
  useEffect(() => {
    if (!profile || loadedFor === profile.id) return;
    setFullName(profile.full_name ?? '');
    setAvatarUrl(profile.avatar_url ?? '');
    setLoadedFor(profile.id);
  }, [profile, loadedFor]);

  useEffect(() => {
    if (message?.tone !== 'saved') return;
    const timer = setTimeout(() => setMessage(null), savedMessageMs);
    return () => clearTimeout(timer);
  }, [message]);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (update.isPending) return;
    setMessage(null);
    update.mutate(
      { full_name: fullName, avatar_url: avatarUrl },
      {
        onSuccess: (saved) => {
          setFullName(saved.full_name ?? '');
          setAvatarUrl(saved.avatar_url ?? '');
          setMessage({ tone: 'saved', text: savedMessage });
          notifyUserUpdated();
        },
        onError: (failure) => setMessage({ tone: 'error', text: failureMessage(failure, saveFailedMessage) }),
      },
    );
  }

  const ready = loadedFor !== null;

  return (
    <Card as="section" aria-labelledby="profile-title">
      <div className="qw-stack qw-stack--sm">
        <h2 id="profile-title" className="qw-card__title">
          Profile
        </h2>
        {me && <p className="qw-muted qw-small">Signed in as {me.user.email}</p>}
      </div>
      <form
        className="qw-stack account-form"
        onSubmit={onSubmit}
        noValidate
        aria-labelledby="profile-title"
        aria-busy={!ready || undefined}
      >
        <Field id="profile-full-name" label="Full name">
          <Input
            name="full_name"
            autoComplete="name"
            value={fullName}
            disabled={!ready}
            onChange={(event) => setFullName(event.target.value)}
          />
        </Field>
        <Field id="profile-avatar-url" label="Avatar URL" hint="An https:// address of a picture.">
          <Input
            type="url"
            name="avatar_url"
            inputMode="url"
            value={avatarUrl}
            disabled={!ready}
            onChange={(event) => setAvatarUrl(event.target.value)}
          />
        </Field>
        <div className="qw-cluster">
          <Button type="submit" busy={update.isPending} busyText="Saving…" disabled={!ready}>
            Save
          </Button>
          <p
            className={message?.tone === 'error' ? 'account-message account-message--error' : 'account-message'}
            role="status"
            aria-live="polite"
          >
            {message?.text}
          </p>
        </div>
      </form>
    </Card>
  );
}
