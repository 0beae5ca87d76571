import { useSearchParams } from 'react-router-dom';
import { Invitation } from '../../features/organizations/components/invitation';
import { PageTitle } from '../../ui';

/** /invite?token=…: join an organization with the link an owner or admin had mailed. */
export default function InviteRoute() {
  const [params] = useSearchParams();
  return (
    <>
      <PageTitle title="Invitation" description="Join an organization on Quietwire." />
      <Invitation token={params.get('token')} />
    </>
  );
}
