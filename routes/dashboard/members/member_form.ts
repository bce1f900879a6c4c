import type { Context } from "hono";
import { z } from "zod";
import { ServiceError } from "../../../actors/kernel/mod.ts";
import type { MemberRole } from "../../../storage/member_store.ts";
import { parseOrThrow } from "../../http/validation.ts";
import { type FieldProblem, fieldProblemsOf } from "../pages/form_problems.tsx";

const RoleField = z.enum(["owner", "viewer"], { message: "choose owner or viewer" });

/** The invite and change-role forms: a role. */
const RoleForm = z.object({ role: RoleField });

/** The role a form asks for; 400 `invalid_request` naming `role` otherwise. */
export async function readRoleForm(c: Context): Promise<MemberRole> {
  const body = await c.req.parseBody();
  return parseOrThrow(RoleForm, { role: typeof body["role"] === "string" ? body["role"] : undefined }, "form")
    .role;
}

/** A refusal of one of the members page's forms, shown next to the form it concerns. */
export interface MemberFormProblem {
  /** `invite`, or the member / invitation id whose row's form was refused. */
  form: string;
  problems: FieldProblem[];
}

/** The refused fields of a 400 or a 409 (the last owner): the field named, or the rule in words. */
export function problemsOf(error: ServiceError): FieldProblem[] {
  if (error.details?.["rule"] === "last_owner") return [{ field: "role", problem: error.message }];
  return fieldProblemsOf(error);
}

/** Member ids the service makes. */
export const MEMBER_ID = /^mbr_[0-9a-f]{24}$/;
/** Invitation ids the service makes (12 random bytes, hex). */
export const INVITATION_ID = /^[0-9a-f]{24}$/;
