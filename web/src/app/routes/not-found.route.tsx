import { ButtonLink, PageTitle } from '../../ui';

export default function NotFoundRoute() {
  return (
    <div className="qw-container qw-page">
      <PageTitle title="Page not found" description="This page does not exist on Quietwire." />
      <header className="qw-page-head">
        <p className="qw-eyebrow">404</p>
        <h1>Page not found</h1>
        <p className="qw-lead">There is nothing at this address. It may have moved, or the link may be mistyped.</p>
        <div className="qw-cluster">
          <ButtonLink to="/">Go to the home page</ButtonLink>
          <ButtonLink to="/faq" variant="secondary">
            Read the FAQ
          </ButtonLink>
        </div>
      </header>
    </div>
  );
}
