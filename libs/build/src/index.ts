export { bundleEntry, type BundleOptions } from './bundle.ts';
export {
  type BuiltService,
  buildServices,
  builtServiceEntry,
  serviceEntry,
  serviceMigrations,
  servicesBuilt,
} from './services.ts';
