import { findPlan, formatUsd, orgDevicesPerUser, refundWindowDays, type PlanCode } from '@qw/contracts';
import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { Card } from '../../../ui';
import { businessDeviceQuotas, businessUserCaps, largestBusinessQuota } from '../data/business-plans';
import { performanceDisclaimer } from '../data/performance';
import './marketing.css';

function price(code: PlanCode): string {
  return `${formatUsd(findPlan(code)?.priceCents ?? 0)}/month`;
}

/** Spec §2 /faq: twelve questions, in this order. */
const questions: readonly { id: string; question: string; answer: ReactNode }[] = [
  {
    id: 'devices',
    question: 'How many devices can I connect?',
    answer: (
      <p>
        As many as you like on Personal and Gaming: both include unlimited devices. Business plans come with a device
        quota of {businessDeviceQuotas} devices, and each person in the organization can have up to {orgDevicesPerUser}.
      </p>
    ),
  },
  {
    id: 'logs',
    question: 'Do you keep logs?',
    answer: (
      <p>
        No. Quietwire follows a strict no-logs policy: we don’t record the sites you visit, your DNS queries or the
        content of your traffic. We keep only what your account needs to work: your email, your billing records, your
        devices and whether each one is connected right now, so your dashboard can show it.
      </p>
    ),
  },
  {
    id: 'protocol',
    question: 'Which VPN protocol do you use?',
    answer: (
      <p>
        WireGuard, and only WireGuard. It is small enough to be reviewed line by line, uses modern cryptography, and
        reconnects quickly when your device changes networks.
      </p>
    ),
  },
  {
    id: 'speed',
    question: 'How fast is it?',
    answer: <p>Typically 450-900 Mbps download, 350-800 Mbps upload and 8-20 ms latency. {performanceDisclaimer}</p>,
  },
  {
    id: 'refund',
    question: 'Can I get a refund?',
    answer: (
      <p>
        Yes. Every plan has a {refundWindowDays}-day money-back guarantee. If Quietwire isn’t right for you, write to us
        within {refundWindowDays} days of your purchase and we refund you in full and end the plan. The guarantee is
        once per customer: a second purchase is not refunded again.
      </p>
    ),
  },
  {
    id: 'streaming',
    question: 'Can I use Quietwire for streaming?',
    answer: (
      <p>
        Yes. The connection is fast enough for high-definition video on every plan. Which titles a streaming service
        offers depends on that service and its rules for your region; we can’t promise access to a particular catalogue.
      </p>
    ),
  },
  {
    id: 'gaming',
    question: 'Is Quietwire good for gaming?',
    answer: (
      <p>
        The Gaming plan ({price('gaming')}) sends your traffic over gaming-optimised routes, typically with 10-30% lower
        ping, and includes DDoS protection. The gain depends on where you and the game server are; it is typical, not
        guaranteed.
      </p>
    ),
  },
  {
    id: 'setup',
    question: 'How do I set up a device?',
    answer: (
      <p>
        Create the device in your dashboard, then either scan its QR code in the WireGuard app or import its
        configuration file. We also email you the configuration and the QR code, so you can set up a phone from your
        laptop’s screen.
      </p>
    ),
  },
  {
    id: 'payment',
    question: 'How can I pay?',
    answer: <p>By card today. PayPal and crypto payments are planned.</p>,
  },
  {
    id: 'business',
    question: 'How do Business plans work?',
    answer: (
      <p>
        Business plans are priced by device quota: Business 10 ({price('business10')}), Business 50 (
        {price('business50')}) and Business 250+ ({price('business250')}). Each person may have up to{' '}
        {orgDevicesPerUser} devices, and plans allow up to {businessUserCaps} users. Admins add and revoke devices and
        manage employee access. Need more than {largestBusinessQuota} devices? <Link to="/contact">Contact us</Link>.
      </p>
    ),
  },
  {
    id: 'locations',
    question: 'Where are your servers?',
    answer: (
      <p>
        In North America, Europe and Asia. More regions are on our roadmap. The{' '}
        <Link to="/servers">server locations page</Link> lists every city with its live status and load.
      </p>
    ),
  },
  {
    id: 'support',
    question: 'How do I reach support?',
    answer: (
      <p>
        By email, 24 hours a day, 7 days a week: use the <Link to="/contact">contact form</Link> and we answer by email.
        Live chat is in progress.
      </p>
    ),
  },
];

export function FaqList() {
  return (
    <ul className="mk-faq" aria-label="Frequently asked questions">
      {questions.map((item) => (
        <li key={item.id}>
          <Card as="article" className="mk-faq__card" aria-labelledby={`faq-${item.id}`}>
            <h2 id={`faq-${item.id}`} className="qw-card__title">
              {item.question}
            </h2>
            <div className="qw-muted">{item.answer}</div>
          </Card>
        </li>
      ))}
    </ul>
  );
}
