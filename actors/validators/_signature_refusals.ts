import { ServiceError } from "../kernel/mod.ts";
import type { StoredNeuron } from "../../storage/metagraph_store.ts";
import type { SignatureRole } from "./canonical_message.ts";

/**
 * Step 4's refusal, 403 `hotkey_not_in_metagraph`. A validator's names the subnet; a miner's
 * names the hotkey alone, as the upload route has answered since it first took signatures.
 */
export function notInMetagraph(
  hotkey: string,
  signer: { role: SignatureRole; netuid: number },
): ServiceError {
  if (signer.role === "miner") {
    return new ServiceError("hotkey_not_in_metagraph", "The signing hotkey is not in the metagraph", {
      details: { hotkey },
    });
  }
  return new ServiceError("hotkey_not_in_metagraph", "The signing hotkey is not in the subnet's metagraph", {
    details: { hotkey, netuid: signer.netuid },
  });
}

/** Step 5's refusal, 403 `validator_permit_required`: no permit, or a stake below `minStakeRao`. */
export function permitRequired(neuron: StoredNeuron, minStakeRao: bigint): ServiceError {
  const message = neuron.validatorPermit
    ? `The signing hotkey's stake is below the minimum of ${minStakeRao} rao`
    : "The signing hotkey has no validator permit";
  return new ServiceError("validator_permit_required", message, {
    details: {
      validatorPermit: neuron.validatorPermit,
      stakeRao: String(neuron.stakeRao),
      minStakeRao: String(minStakeRao),
    },
  });
}

/** Step 7's refusal, 401 `nonce_reused`. */
export function nonceReused(): ServiceError {
  return new ServiceError("nonce_reused", "The request nonce was already used by this hotkey");
}

/**
 * Step 9's refusal, 403 `miner_not_registered`: of the miner a validator's request names, or of
 * the signer itself on a miner's request.
 */
export function minerNotRegistered(minerHotkey: string, signer: { role: SignatureRole }): ServiceError {
  const message = signer.role === "miner"
    ? "The signing miner hotkey is not registered to an organisation"
    : "The miner hotkey is not registered to an organisation";
  return new ServiceError("miner_not_registered", message, { details: { minerHotkey } });
}
