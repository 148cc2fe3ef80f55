/**
 * A proposal's statuses (docs/http-contract.md, The proposal record): vocabulary, so the hive, the
 * command line and the workbench's pages share one list.
 *
 * @module
 */

/** Statuses of a proposal. */
export const PROPOSAL_STATUSES = ["queued", "applied", "partially_applied", "rejected"] as const;

/** A proposal's status. */
export type ProposalStatus = typeof PROPOSAL_STATUSES[number];
