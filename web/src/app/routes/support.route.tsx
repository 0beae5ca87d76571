import { Link } from 'react-router-dom';
import { supportEmail, supportReplyTime } from '../../config/site';
import { ContactForm } from '../../features/contact/components/contact-form';
import { Card, PageTitle } from '../../ui';

/** The FAQ answers people look for most when they need help (anchors of /faq). */
const faqLinks = [
  { to: '/faq#faq-setup', label: 'Setting up a device' },
  { to: '/faq#faq-devices', label: 'How many devices you can connect' },
  { to: '/faq#faq-business', label: 'Business plans, users and device quotas' },
  { to: '/faq#faq-refund', label: 'Refunds and the money-back guarantee' },
  { to: '/faq#faq-payment', label: 'Payment methods' },
  { to: '/faq#faq-support', label: 'How support works' },
] as const;

/** /support (issue #12): how to reach support, in the public layout; linked from the footer and the business Account tab. */
export default function SupportRoute() {
  return (
    <div className="qw-container qw-page">
      <PageTitle title="Support" description="Reach Quietwire support by email, 24/7, or with the contact form." />
      <header className="qw-page-head">
        <p className="qw-eyebrow">Support</p>
        <h1>How to reach support</h1>
        <p className="qw-lead">Support runs 24/7 by email. We reply {supportReplyTime}. Live chat is in progress.</p>
      </header>
      <div className="ct-layout">
        <Card>
          <ContactForm />
        </Card>
        <div className="qw-stack">
          <Card as="section" tone="muted" aria-labelledby="support-email-title">
            <h2 id="support-email-title" className="qw-card__title">
              Email
            </h2>
            <p>
              <a href={`mailto:${supportEmail}`} className="qw-mono" data-testid="support-email">
                {supportEmail}
              </a>
            </p>
            <p className="qw-muted">
              24/7, {supportReplyTime}. Write from the address of your account so we can find it, and never send us a
              device’s private key or its configuration file: we will never ask for them.
            </p>
          </Card>
          <Card as="section" tone="muted" aria-labelledby="support-faq-title">
            <h2 id="support-faq-title" className="qw-card__title">
              Answers in the FAQ
            </h2>
            <ul className="qw-stack qw-stack--sm">
              {faqLinks.map((link) => (
                <li key={link.to}>
                  <Link to={link.to}>{link.label}</Link>
                </li>
              ))}
            </ul>
          </Card>
        </div>
      </div>
    </div>
  );
}
