import { Type } from 'typebox';
import { HealthSchema } from '../platform/health.rpc.ts';
import { contactEmailMaxLength, contactMessageBodyMaxLength } from '../contact.ts';
import { defineRoute } from './route.ts';

export const ContactBodySchema = Type.Object({
  email: Type.String({ maxLength: contactEmailMaxLength }),
  message: Type.String({ maxLength: contactMessageBodyMaxLength }),
});

export const contactRoute = defineRoute({
  operationId: 'contact',
  method: 'POST',
  url: '/api/contact',
  access: 'public',
  tags: ['support'],
  summary: 'The contact form: stored, then mailed to support',
  body: ContactBodySchema,
  response: { 201: Type.Object({ id: Type.String() }) },
});

export const healthRoute = defineRoute({
  operationId: 'health',
  method: 'GET',
  url: '/api/health',
  access: 'public',
  tags: ['system'],
  summary: 'Round trip to every backend service',
  response: { 200: HealthSchema, 503: HealthSchema },
});

export const supportRoutes = [contactRoute, healthRoute];
