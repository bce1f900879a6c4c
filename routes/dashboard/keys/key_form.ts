import type { Context } from "hono";
import type { ApiKeyTerms } from "../../../actors/keys/mod.ts";
import type { OrgStore } from "../../../storage/org_store.ts";
import { parseOrThrow } from "../../http/validation.ts";
import { checkTerms, termsOf } from "../../keys/admin_keys.ts";
import { issueSchema } from "../../keys/admin_keys_api.ts";

/** The create-key form as the member typed it (shown again when it is refused). */
export interface KeyFormValues {
  name: string;
  scopes: string[];
  rateLimitRpm: string;
  pinnedMinerHotkey: string;
  expiresAt: string;
}

export const EMPTY_KEY_FORM: KeyFormValues = {
  name: "",
  scopes: [],
  rateLimitRpm: "60",
  pinnedMinerHotkey: "",
  expiresAt: "",
};

const LOCAL_MINUTE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/;

/** The form's fields, read as text (a repeated field other than `scopes`: its last value). */
export async function readKeyForm(c: Context): Promise<KeyFormValues> {
  const body = await c.req.parseBody({ all: true });
  const text = (name: string) => {
    const value = body[name];
    const last = Array.isArray(value) ? value.at(-1) : value;
    return typeof last === "string" ? last.trim() : "";
  };
  const scopes = [body["scopes"] ?? []].flat().filter((scope): scope is string => typeof scope === "string");
  return {
    name: text("name"),
    scopes,
    rateLimitRpm: text("rateLimitRpm"),
    pinnedMinerHotkey: text("pinnedMinerHotkey"),
    expiresAt: text("expiresAt"),
  };
}

/**
 * The terms of the key the form asks for, checked exactly as the admin API checks a body
 * (`issueSchema`, then the expiry and the pinned miner); 400 `invalid_request` naming the fields.
 * An empty optional field is left out; an expiry typed to the minute (`datetime-local`) is UTC.
 */
export async function keyTermsOf(
  values: KeyFormValues,
  orgId: string,
  deps: { orgs: Pick<OrgStore, "get" | "minerRegistration">; clock: () => number },
): Promise<ApiKeyTerms> {
  const rpm = values.rateLimitRpm === "" ? Number.NaN : Number(values.rateLimitRpm);
  const body = {
    name: values.name,
    scopes: values.scopes,
    rateLimitRpm: Number.isNaN(rpm) ? values.rateLimitRpm : rpm,
    ...(values.pinnedMinerHotkey === "" ? {} : { pinnedMinerHotkey: values.pinnedMinerHotkey }),
    ...(values.expiresAt === ""
      ? {}
      : { expiresAt: LOCAL_MINUTE.test(values.expiresAt) ? `${values.expiresAt}:00Z` : values.expiresAt }),
  };
  const terms = termsOf(orgId, parseOrThrow(issueSchema, body, "body"));
  await checkTerms(deps, terms);
  return terms;
}
