/**
 * `make services`: compiles the gateway, every backend service and the node agent into one
 * plain-JavaScript module each (services/<name>/dist/main.mjs, libs/build), which `make dev` and
 * the Docker images run with no TypeScript loader.
 *
 *   npx tsx scripts/build-services.ts [name ...]
 */
import { buildServices, servicesBuilt } from '@qw/build';

const asked = process.argv.slice(2);
const unknown = asked.filter((name) => !(servicesBuilt as readonly string[]).includes(name));
if (unknown.length > 0) {
  console.error(`unknown service: ${unknown.join(', ')} (known: ${servicesBuilt.join(', ')})`);
  process.exit(2);
}
const services = asked.length > 0 ? asked : servicesBuilt;
const took = await buildServices(services);
console.log(`built ${services.join(', ')} in ${Math.round(took)} ms`);
