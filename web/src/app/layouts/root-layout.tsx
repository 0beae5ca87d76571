import { Outlet } from 'react-router-dom';
import { SignedInRedirect } from '../guards/signed-in-redirect';

/** Wraps every route: the automatic redirect for signed-in people watches every location. */
export function RootLayout() {
  return (
    <>
      <SignedInRedirect />
      <Outlet />
    </>
  );
}
