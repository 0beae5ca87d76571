/** Ids in paths and queries are checked with this before any service is asked. */
export { isUuid } from '@qw/contracts';
