import { Type, type Static, type TSchema } from 'typebox';

/** Every event on the bus travels in this envelope; `data` is checked against the subject's schema. */
export const EnvelopeSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  type: Type.String({ minLength: 1 }),
  occurredAt: Type.String({ format: 'date-time' }),
  version: Type.Integer({ minimum: 1 }),
  data: Type.Unknown(),
});
export type Envelope<T = unknown> = Omit<Static<typeof EnvelopeSchema>, 'data'> & { data: T };

export type EventContract<S extends TSchema = TSchema> = {
  /** Subject without any namespace prefix, `<owner>.<entity>.<event>`. */
  subject: string;
  version: number;
  schema: S;
};

export function defineEvent<S extends TSchema>(subject: string, version: number, schema: S): EventContract<S> {
  return { subject, version, schema };
}
