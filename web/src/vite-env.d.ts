/// <reference types="vite/client" />

interface ImportMetaEnv {
  readonly VITE_API_BASE_URL?: string;
  /** The support address /support shows (identity's SUPPORT_EMAIL); support@quietwire.test by default. */
  readonly VITE_SUPPORT_EMAIL?: string;
}
