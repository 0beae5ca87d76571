import { isApiError, setAccessTokenProvider, setUnauthorizedHandler, type ApiError } from '../api-client';
import { requestMfaSignIn } from './api/complete-mfa';
import { requestRefresh } from './api/refresh-session';
import { requestSignIn } from './api/sign-in';
import { requestSignOut } from './api/sign-out';
import { requestSignUp } from './api/sign-up';
import type { SetPasswordGrant } from '@qw/contracts';
import { requestSetPassword } from './api/set-password';
import { requestEmailVerification } from './api/verify-email';
import { broadcast, onCrossTabMessage, withRefreshLock } from './cross-tab';
import {
  isMfaChallenge,
  type AuthEvent,
  type AuthEventListener,
  type MfaChallenge,
  type Session,
} from './session-types';

/** Spec §9 auth service timings. */
export const refreshTimings = {
  /** The auto-refresh check runs this often. */
  tickMs: 30_000,
  /** Refresh when the access token expires within this many ticks. */
  thresholdTicks: 3,
  /** First retry delay for 502/503/504 (and no answer); doubles each time. */
  backoffStartMs: 200,
  maxRetries: 4,
} as const;

/**
 * Why there is no session: the person signed out here ('user'), in another tab ('remote'), or the
 * session ended on the server ('ended'). Screens use it to tell "you signed out" from "sign in again".
 */
export type SignedOutReason = 'user' | 'remote' | 'ended' | null;

export type AuthSnapshot = {
  session: Session | null;
  /** False until the page-load restore (POST /api/auth/refresh) has answered. */
  initialized: boolean;
  signedOutReason: SignedOutReason;
};

type RefreshOutcome = { kind: 'session'; session: Session } | { kind: 'ended' } | { kind: 'failed'; error: unknown };

const retryableStatuses = new Set([0, 502, 503, 504]);

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** What opening a verification link came to: the password step, or confirmed in this session. */
export type EmailVerificationOutcome = SetPasswordGrant | { step: 'verified'; session: Session | null };

/**
 * The one owner of the session in this tab: it keeps the access token in memory, restores the
 * session at page load, refreshes it before it expires (single-flight, and under a lock shared
 * with the other tabs), answers the api client's token and 401 questions, and tells subscribers
 * about session events. It has no React in it; AuthProvider adapts it.
 */
export class SessionManager {
  private snapshot: AuthSnapshot = { session: null, initialized: false, signedOutReason: null };
  private readonly storeListeners = new Set<() => void>();
  private readonly eventListeners = new Set<AuthEventListener>();
  private inflightRefresh: Promise<Session | null> | null = null;
  private initializing: Promise<void> | null = null;
  /** Bumped by every sign-in and sign-out, so a refresh that started before one cannot undo it. */
  private epoch = 0;
  private lastRefreshAt = 0;
  /**
   * When the access token runs out, on this device's clock: its lifetime (expires_in) counted from
   * when it arrived. The server's expires_at is on the server's clock; a device whose clock is
   * minutes off would otherwise refresh on every tick, or too late.
   */
  private expiresAtLocal = 0;
  private timer: ReturnType<typeof setInterval> | null = null;

  // useSyncExternalStore wants stable functions.
  readonly getSnapshot = (): AuthSnapshot => this.snapshot;

  readonly subscribe = (listener: () => void): (() => void) => {
    this.storeListeners.add(listener);
    return () => this.storeListeners.delete(listener);
  };

  /** Session events (spec §4): signed in, signed out, token refreshed, password recovery, user updated. */
  onAuthStateChange(listener: AuthEventListener): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  /** Plugs into the api client and restores the session; safe to call more than once. */
  initialize(): Promise<void> {
    if (this.initializing) return this.initializing;
    setAccessTokenProvider(() => this.accessToken());
    setUnauthorizedHandler((error) => this.handleUnauthorized(error));
    onCrossTabMessage((message) => {
      if (message.type === 'signed-out') {
        if (this.snapshot.session) this.clear('remote');
      } else if (message.type === 'signed-in' && this.snapshot.session?.user.id !== message.userId) {
        // Another tab signed in: the shared cookie now holds that session.
        void this.refresh();
      }
    });
    this.startAutoRefresh();
    this.initializing = (async () => {
      await this.refresh({ initial: true });
      if (!this.snapshot.initialized) this.update({ ...this.snapshot, initialized: true });
      this.emit('INITIAL_SESSION');
    })();
    return this.initializing;
  }

  /** Email and password. Answers the two-factor challenge instead of a session when a code is needed. */
  async signIn(email: string, password: string): Promise<Session | MfaChallenge> {
    await this.settleRefresh();
    const answer = await requestSignIn({ email, password });
    if (isMfaChallenge(answer)) return answer;
    this.signedIn(answer);
    return answer;
  }

  async completeMfa(mfaToken: string, code: string): Promise<Session> {
    await this.settleRefresh();
    const session = await requestMfaSignIn({ mfa_token: mfaToken, code });
    this.signedIn(session);
    return session;
  }

  /** `invitationToken`: signing up from an invitation mailed to `email`, which confirms the address. */
  async signUp(email: string, password: string, invitationToken?: string): Promise<Session> {
    await this.settleRefresh();
    const session = await requestSignUp({
      email,
      password,
      ...(invitationToken ? { invitation_token: invitationToken } : {}),
    });
    this.signedIn(session);
    return session;
  }

  /**
   * The link in the verification mail. Opened in this browser's own session of the account, it
   * confirms the address: the session is refreshed so its user says so at once (the banner goes).
   * Anywhere else it signs nobody in: the server has ended every session of the account and answers
   * a token for choosing the password (`setPassword`).
   */
  async verifyEmail(token: string): Promise<EmailVerificationOutcome> {
    await this.settleRefresh();
    const answer = await requestEmailVerification(token);
    if (answer.step === 'choose_password') return answer;
    const session = await this.refresh();
    this.notifyUserUpdated();
    return { step: 'verified', session };
  }

  /** The password chosen after a first verification: the session starts here. */
  async setPassword(token: string, password: string): Promise<Session> {
    await this.settleRefresh();
    const session = await requestSetPassword({ token, password });
    this.signedIn(session);
    return session;
  }

  /**
   * A session another request started (turning two-factor sign-in on ends every session and
   * answers a new one): it replaces this tab's, and the other tabs pick it up from the cookie.
   */
  adoptSession(session: Session): void {
    this.signedIn(session);
  }

  /** Ends the session on the server and here, and in the other tabs. */
  async signOut(): Promise<void> {
    this.epoch++;
    await this.settleRefresh();
    try {
      await requestSignOut();
    } catch (error) {
      // Signed out here regardless; the server ends the session when its cookie expires.
      console.warn('Sign-out request failed', error);
    }
    this.clear('user');
    broadcast({ type: 'signed-out' });
  }

  /**
   * The screen that signed out has finished leaving: from now on a protected page without a
   * session sends the visitor to sign in again (rather than waiting for the sign-out navigation).
   */
  acknowledgeSignOut(): void {
    if (this.snapshot.signedOutReason === 'user') this.update({ ...this.snapshot, signedOutReason: null });
  }

  /**
   * Forgets the session here without asking the server (it already ended it, e.g. after a
   * password reset), and tells the other tabs.
   */
  forget(): void {
    if (!this.snapshot.session) return;
    this.clear('ended');
    broadcast({ type: 'signed-out' });
  }

  /**
   * A new access token from the refresh cookie. Single-flight: every caller during a refresh gets
   * the same answer. Resolves null when the session has ended.
   */
  refresh(options: { initial?: boolean } = {}): Promise<Session | null> {
    if (this.inflightRefresh) return this.inflightRefresh;
    const epoch = this.epoch;
    const before = this.snapshot.session;
    const run = (async () => {
      const outcome = await this.refreshUnderLock();
      if (epoch !== this.epoch) return this.snapshot.session;
      if (outcome.kind === 'session') {
        this.lastRefreshAt = Date.now();
        const sameUser = before?.user.id === outcome.session.user.id;
        this.update({ session: outcome.session, initialized: true, signedOutReason: null });
        // The page-load restore reports itself once, as INITIAL_SESSION.
        if (!options.initial) this.emit(sameUser ? 'TOKEN_REFRESHED' : 'SIGNED_IN');
        return outcome.session;
      }
      if (outcome.kind === 'ended') {
        if (this.snapshot.session) this.clear('ended');
        return null;
      }
      // No answer or a server error: keep what we have; its token may still be good.
      console.warn('Session refresh failed', outcome.error);
      return this.snapshot.session;
    })();
    this.inflightRefresh = run.finally(() => {
      this.inflightRefresh = null;
    });
    return this.inflightRefresh;
  }

  /** The profile changed (spec §4 "user updated"). */
  notifyUserUpdated(): void {
    this.emit('USER_UPDATED');
  }

  /** A password reset link was opened (spec §4 "password recovery"). */
  notifyPasswordRecovery(): void {
    this.emit('PASSWORD_RECOVERY');
  }

  private signedIn(session: Session): void {
    this.epoch++;
    this.lastRefreshAt = Date.now();
    this.update({ session, initialized: true, signedOutReason: null });
    broadcast({ type: 'signed-in', userId: session.user.id });
    this.emit('SIGNED_IN');
  }

  private clear(reason: Exclude<SignedOutReason, null>): void {
    this.epoch++;
    this.update({ session: null, initialized: true, signedOutReason: reason });
    this.emit('SIGNED_OUT');
  }

  private async accessToken(): Promise<string | null> {
    if (this.inflightRefresh) await this.inflightRefresh.catch(() => null);
    return this.snapshot.session?.access_token ?? null;
  }

  /** A 401 with invalid_token means the access token expired or was refused: one refresh, then one retry. */
  private async handleUnauthorized(error: ApiError): Promise<boolean> {
    if (error.code !== 'invalid_token' || !this.snapshot.session) return false;
    if (this.inflightRefresh) return (await this.inflightRefresh) !== null;
    // A request sent just before a refresh finished carried the old token: retry with the new one.
    if (Date.now() - this.lastRefreshAt < 5_000) return true;
    return (await this.refresh()) !== null;
  }

  private async settleRefresh(): Promise<void> {
    if (this.inflightRefresh) await this.inflightRefresh.catch(() => null);
  }

  private refreshUnderLock(): Promise<RefreshOutcome> {
    return withRefreshLock(() => this.refreshWithBackoff());
  }

  private async refreshWithBackoff(): Promise<RefreshOutcome> {
    let delay: number = refreshTimings.backoffStartMs;
    for (let attempt = 0; ; attempt++) {
      try {
        const session = await requestRefresh();
        // 204: no refresh cookie, nobody is signed in on this browser.
        return session ? { kind: 'session', session } : { kind: 'ended' };
      } catch (error) {
        if (isApiError(error) && error.status === 401) return { kind: 'ended' };
        if (!isApiError(error) || !retryableStatuses.has(error.status) || attempt >= refreshTimings.maxRetries)
          return { kind: 'failed', error };
        await sleep(delay);
        delay *= 2;
      }
    }
  }

  private readonly onVisible = () => {
    if (document.visibilityState === 'visible') this.tick();
  };

  private startAutoRefresh(): void {
    if (this.timer || typeof window === 'undefined') return;
    this.timer = setInterval(() => this.tick(), refreshTimings.tickMs);
    // Background tabs run timers rarely; check as soon as the tab is looked at again.
    document.addEventListener('visibilitychange', this.onVisible);
  }

  private tick(): void {
    const session = this.snapshot.session;
    if (!session || this.inflightRefresh) return;
    const msLeft = this.expiresAtLocal - Date.now();
    if (msLeft <= refreshTimings.tickMs * refreshTimings.thresholdTicks) void this.refresh();
  }

  private update(next: AuthSnapshot): void {
    if (next.session && next.session !== this.snapshot.session)
      this.expiresAtLocal = Date.now() + next.session.expires_in * 1000;
    this.snapshot = next;
    for (const listener of [...this.storeListeners]) listener();
  }

  private emit(event: AuthEvent): void {
    const session = this.snapshot.session;
    for (const listener of [...this.eventListeners]) {
      try {
        listener(event, session);
      } catch (error) {
        console.error('Auth event listener failed', error);
      }
    }
  }
}

/** The tab's one session manager. */
export const sessionManager = new SessionManager();
