import { PageTitle } from '../../ui';
import { RoutePending } from '../guards/protected-route';

/**
 * /app: the entry point of the signed-in app. It shows nothing of its own: the protected wrapper
 * sends a visitor without a session to sign in, and the automatic redirect sends a signed-in person
 * to their role's home (spec §2).
 */
export default function AppEntryRoute() {
  return (
    <>
      <PageTitle title="Quietwire app" description="Opening your Quietwire account." />
      <RoutePending />
    </>
  );
}
