import type { Me, Profile } from '@qw/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { createContext, useContext, useEffect, useMemo, useRef, useSyncExternalStore, type ReactNode } from 'react';
import { meKey, useMeQuery } from './api/get-me';
import { sessionManager, type SessionManager, type SignedOutReason } from './session-manager';
import type { AuthEventListener, Session, SessionUser } from './session-types';

/** Spec §3 "Client auth state": session, user, profile, loading (starts true), isAdmin; plus the actions. */
export type AuthState = {
  session: Session | null;
  user: SessionUser | null;
  profile: Profile | null;
  /** GET /api/me, once it has answered. */
  me: Me | null;
  /** True until the session is restored and, when there is one, the profile is read. */
  loading: boolean;
  /** From /api/me: the admin_emails table, or role or account type admin. */
  isAdmin: boolean;
  /** /api/me is still being asked for the current session. */
  meLoading: boolean;
  /** /api/me failed for the current session. */
  meFailed: boolean;
  signedOutReason: SignedOutReason;
  signIn: SessionManager['signIn'];
  completeMfa: SessionManager['completeMfa'];
  signUp: SessionManager['signUp'];
  verifyEmail: SessionManager['verifyEmail'];
  setPassword: SessionManager['setPassword'];
  adoptSession: SessionManager['adoptSession'];
  signOut: SessionManager['signOut'];
  /** Call once the sign-out navigation is done (see SessionManager.acknowledgeSignOut). */
  acknowledgeSignOut: SessionManager['acknowledgeSignOut'];
  refresh: () => Promise<Session | null>;
  forget: SessionManager['forget'];
  notifyUserUpdated: SessionManager['notifyUserUpdated'];
  notifyPasswordRecovery: SessionManager['notifyPasswordRecovery'];
  /** Subscribe to session events; returns the unsubscribe function. */
  onAuthStateChange: (listener: AuthEventListener) => () => void;
};

const AuthContext = createContext<AuthState | null>(null);

export function AuthProvider({
  children,
  manager = sessionManager,
}: {
  children: ReactNode;
  manager?: SessionManager;
}) {
  const queryClient = useQueryClient();
  const snapshot = useSyncExternalStore(manager.subscribe, manager.getSnapshot, manager.getSnapshot);
  const session = snapshot.session;
  const userId = session?.user.id ?? null;
  const me = useMeQuery(userId);
  const lastUser = useRef<{ id: string | null; accountType: string | null }>({ id: null, accountType: null });

  useEffect(() => {
    void manager.initialize();
  }, [manager]);

  useEffect(
    () =>
      manager.onAuthStateChange((event, current) => {
        const previous = lastUser.current;
        const id = current?.user.id ?? null;
        lastUser.current = { id, accountType: current?.user.account_type ?? null };
        // Nothing one person's screens loaded may show for the next one.
        if (event === 'SIGNED_OUT' || (previous.id !== null && id !== null && previous.id !== id))
          queryClient.removeQueries();
        if (event === 'TOKEN_REFRESHED' && previous.accountType !== (current?.user.account_type ?? null))
          void queryClient.invalidateQueries({ queryKey: meKey });
        if (event === 'USER_UPDATED') void queryClient.invalidateQueries({ queryKey: meKey });
      }),
    [manager, queryClient],
  );

  const actions = useMemo(
    () => ({
      signIn: (email: string, password: string) => manager.signIn(email, password),
      completeMfa: (token: string, code: string) => manager.completeMfa(token, code),
      signUp: (email: string, password: string, invitationToken?: string) =>
        manager.signUp(email, password, invitationToken),
      verifyEmail: (token: string) => manager.verifyEmail(token),
      setPassword: (token: string, password: string) => manager.setPassword(token, password),
      adoptSession: (session: Session) => manager.adoptSession(session),
      signOut: () => manager.signOut(),
      acknowledgeSignOut: () => manager.acknowledgeSignOut(),
      refresh: () => manager.refresh(),
      forget: () => manager.forget(),
      notifyUserUpdated: () => manager.notifyUserUpdated(),
      notifyPasswordRecovery: () => manager.notifyPasswordRecovery(),
      onAuthStateChange: (listener: AuthEventListener) => manager.onAuthStateChange(listener),
    }),
    [manager],
  );

  const meData = userId && me.data && me.data.user.id === userId ? me.data : null;
  const meLoading = userId !== null && me.isPending && !me.isError;
  const meFailed = userId !== null && me.isError;
  const value = useMemo<AuthState>(
    () => ({
      session,
      user: session?.user ?? null,
      profile: meData?.profile ?? null,
      me: meData,
      loading: !snapshot.initialized || meLoading,
      isAdmin: meData?.is_admin ?? false,
      meLoading,
      meFailed,
      signedOutReason: snapshot.signedOutReason,
      ...actions,
    }),
    [session, meData, snapshot.initialized, snapshot.signedOutReason, meLoading, meFailed, actions],
  );

  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

export function useAuth(): AuthState {
  const value = useContext(AuthContext);
  if (!value) throw new Error('useAuth must be used inside <AuthProvider>');
  return value;
}
