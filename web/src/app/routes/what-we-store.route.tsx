import { WhatWeStore } from '../../features/privacy/components/what-we-store';
import { PageTitle } from '../../ui';
import '../../features/privacy/components/privacy.css';

export default function WhatWeStoreRoute() {
  return (
    <div className="qw-container qw-page">
      <PageTitle
        title="What we store"
        description="Exactly what Quietwire keeps: every table, log field and event stream, and for how long."
      />
      <header className="qw-page-head">
        <p className="qw-eyebrow">Privacy</p>
        <h1>What we store</h1>
        <p className="qw-lead">
          Everything Quietwire keeps, table by table, with the personal data in it and how long it stays. This page is
          made from the same list our privacy test checks the running service against.
        </p>
      </header>
      <WhatWeStore />
    </div>
  );
}
