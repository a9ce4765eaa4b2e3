/**
 * The contract between Tiller's workflows, its worker (activities) and its clients: message names,
 * search attributes, the activity interface and the texts the Temporal UI shows. Workflows,
 * activities and clients import it; it imports only pure modules (src/core), never any of them.
 */
export * from './messages';
export * from './search-attributes';
export * from './summaries';
export type { TillerActivities } from './activities';
