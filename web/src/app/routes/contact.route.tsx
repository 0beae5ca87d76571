import { Link } from 'react-router-dom';
import { ContactForm } from '../../features/contact/components/contact-form';
import { Card, PageTitle } from '../../ui';

export default function ContactRoute() {
  return (
    <div className="qw-container qw-page">
      <PageTitle title="Contact" description="Write to Quietwire support. We answer by email, 24/7." />
      <header className="qw-page-head">
        <p className="qw-eyebrow">Contact</p>
        <h1>Contact us</h1>
        <p className="qw-lead">
          Questions about plans, setup or billing? Write to us and we answer by email. Support runs 24/7; live chat is
          in progress.
        </p>
      </header>
      <div className="ct-layout">
        <Card>
          <ContactForm />
        </Card>
        <Card as="section" tone="muted" aria-labelledby="contact-aside-title">
          <h2 id="contact-aside-title" className="qw-card__title">
            Before you write
          </h2>
          <p className="qw-muted">
            Many answers are already in the <Link to="/faq">FAQ</Link>: setting up a device, refunds, payment methods
            and business plans.
          </p>
          <p className="qw-muted">
            Never send us a device’s private key or its configuration file. We will never ask for them.
          </p>
        </Card>
      </div>
    </div>
  );
}
