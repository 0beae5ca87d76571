export { bundleEntry, type BundleOptions } from './bundle.ts';
export { buildServices, builtServiceEntry, serviceMigrations, servicesBuilt } from './services.ts';
