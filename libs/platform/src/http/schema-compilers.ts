import { AjvCompiler } from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

/**
 * The compilers of route schemas, one set per process instead of one per fastify app. Fastify
 * makes new ones for each app it builds, and compiles every route's schemas again with them: for
 * the gateway's two hundred routes that cost about half a second of CPU per app. A process builds
 * its app once in production, but a test worker builds one per test file, for over a hundred files.
 *
 * Validators: fastify's own pool (`AjvCompiler`), kept for the process, hands apps with the same
 * shared schemas and Ajv options the same Ajv, and Ajv keeps each schema object's compiled check.
 * Serializers: fast-json-stringify's own compiler, with each compiled function kept per schema
 * object, for apps with the same shared schemas and options. A route's schemas are the contract's
 * objects (libs/contracts), never changed after they are made, so a function compiled for one app
 * is the same for the next.
 */
export const buildValidator = AjvCompiler();

const buildFastJsonStringify = SerializerSelector();
const serializerPools = new Map<string, WeakMap<object, (data: unknown) => string>>();

export function buildSerializer(
  externalSchemas: unknown,
  options: Parameters<typeof buildFastJsonStringify>[1],
): ReturnType<typeof buildFastJsonStringify> {
  const compile = buildFastJsonStringify(externalSchemas, options);
  const key = JSON.stringify([externalSchemas ?? {}, options ?? {}]);
  const compiled = serializerPools.get(key) ?? new WeakMap();
  serializerPools.set(key, compiled);
  return (route) => {
    const schema = route.schema;
    if (typeof schema !== 'object' || schema === null) return compile(route);
    let serialize = compiled.get(schema);
    if (!serialize) {
      serialize = compile(route);
      compiled.set(schema, serialize);
    }
    return serialize;
  };
}
