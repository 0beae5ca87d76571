import '../../features/admin/components/admin.css';
import { Link, useParams } from 'react-router-dom';
import { PersonActions } from '../../features/admin/components/person-actions';
import { PersonPage } from '../../features/admin/components/person-page';
import { PersonSuspension } from '../../features/admin/components/person-suspension';
import { PageTitle } from '../../ui';

/** /admin/accounts/users/:id (issue #26): one person's page in the operator console. */
export default function AdminPersonRoute() {
  const { id = '' } = useParams();
  return (
    <div className="console-screen console-screen--wide">
      <PageTitle title="Admin — Account" description="Quietwire admin console: one account." />
      <div className="console-screen__head">
        <p>
          <Link to="/admin/accounts">← Users</Link>
        </p>
        <h1>Account</h1>
        <p className="qw-muted">Everything Quietwire holds about this person, and what operators can do for them.</p>
      </div>
      <PersonPage
        id={id}
        actions={(person) => (
          <>
            <PersonActions person={person} />
            <PersonSuspension person={person} />
          </>
        )}
      />
    </div>
  );
}
