import { isSs58Address, ServiceError } from "../kernel/mod.ts";
import type { OrgStore } from "../../storage/org_store.ts";
import { invalidField } from "./org_account.ts";
import type { MinerReply, OrgMessage } from "./org_messages.ts";

/** The OrgActor's messages that change its miner registrations. */
export type MinerMessage = Extract<
  OrgMessage,
  { type: "registerMiner" | "unregisterMiner" | "setDefaultMiner" }
>;

/**
 * Applies a miner message of organisation `orgId` in storage: a hotkey is an SS58 address and
 * belongs to one organisation (409 `conflict` otherwise); unregistering or defaulting a hotkey
 * the organisation does not hold is 404 `not_found`.
 */
export async function changeMiners(
  orgs: OrgStore,
  orgId: string,
  message: MinerMessage,
  options: { atMs: number },
): Promise<MinerReply["outcome"]> {
  const { hotkey } = message;
  if (!isSs58Address(hotkey)) {
    throw invalidField("hotkey", "Must be an SS58 address with network prefix 42 (Bittensor)");
  }
  if (message.type === "registerMiner") {
    const registered = await orgs.registerMiner(orgId, hotkey, {
      atMs: options.atMs,
      makeDefault: message.makeDefault ?? false,
    });
    if (registered === "taken") {
      throw new ServiceError("conflict", "Miner hotkey is registered to another organisation", {
        details: { hotkey },
      });
    }
    return registered;
  }
  const done = message.type === "unregisterMiner"
    ? await orgs.unregisterMiner(orgId, hotkey)
    : await orgs.setDefaultMiner(orgId, hotkey);
  if (!done) throw new ServiceError("not_found", "Miner hotkey is not registered to this organisation");
  return message.type === "unregisterMiner" ? "unregistered" : "default";
}
