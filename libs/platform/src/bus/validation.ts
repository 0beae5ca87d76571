import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import type { Validator } from 'typebox/compile';

const validators = new WeakMap<TSchema, Validator>();

function validatorFor(schema: TSchema): Validator {
  let validator = validators.get(schema);
  if (!validator) {
    validator = Compile(schema) as unknown as Validator;
    validators.set(schema, validator);
  }
  return validator;
}

/** Names the offending field and what is wrong with it: `data/seats: must be integer`. */
export function describeProblems(schema: TSchema, value: unknown, root = 'data'): string[] {
  const validator = validatorFor(schema);
  if (validator.Check(value)) return [];
  return validator.Errors(value).map((error) => {
    if (error.keyword === 'required') {
      const missing = (error.params as { requiredProperties?: string[] }).requiredProperties ?? [];
      return missing.map((field) => `${root}${error.instancePath}/${field}: is required`).join('; ');
    }
    return `${root}${error.instancePath}: ${error.message}`;
  });
}

export function isValid(schema: TSchema, value: unknown): boolean {
  return validatorFor(schema).Check(value);
}
