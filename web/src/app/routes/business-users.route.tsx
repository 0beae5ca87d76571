import { PageTitle } from '../../ui';

/** Placeholder: the organization users list (owners and admins) is built by another issue. */
export default function BusinessUsersRoute() {
  return (
    <div className="console-screen">
      <PageTitle title="Users" description="The people in your organization." />
      <div className="console-screen__head">
        <h1>Users</h1>
        <p className="qw-muted" data-placeholder="business-users">
          The people in your organization will appear here.
        </p>
      </div>
    </div>
  );
}
