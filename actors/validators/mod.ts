/**
 * The validator loop's self-contained parts: sr25519 request signatures (canonical message, header
 * rules, verification, a signing client), the Subtensor `NeuronInfoLite` decoding, the metagraph
 * file, the `MetagraphSource` port with its file and Subtensor adapters, the metagraph sync job
 * and the per-instance `MetagraphView`.
 *
 * @module
 */
export * from "./canonical_message.ts";
export * from "./signature_headers.ts";
export * from "./sr25519.ts";
export * from "./verify_pool.ts";
export * from "./signed_request.ts";
export * from "./signing_client.ts";
export * from "./neuron.ts";
export * from "./neuron_info_lite.ts";
export * from "./metagraph_source.ts";
export * from "./metagraph_file.ts";
export * from "./file_metagraph_source.ts";
export * from "./subtensor_metagraph_source.ts";
export * from "./metagraph_sync_job.ts";
export * from "./metagraph_view.ts";
export * from "./signature_guard.ts";
export * from "./pending_use.ts";
export * from "./nonce_purge_job.ts";
export * from "./validator_desk.ts";
export * from "./held_leases.ts";
export * from "./eligible_miners.ts";
export * from "./assignment_sync_job.ts";
export * from "./subtensor_rpc.ts";
