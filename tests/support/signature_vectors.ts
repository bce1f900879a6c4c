import { z } from "zod";

/**
 * The interop vectors of request signatures (docs/signatures.md, "Worked example"), shipped with
 * the tests in tests/validators/golden/signatures-v1.json: every test reads this copy, never a file
 * outside the repository.
 */
const VECTORS = new URL("../validators/golden/signatures-v1.json", import.meta.url);

/**
 * SHA-256 of the project's shared `golden/signatures-v1.json`, the file the copy was taken from.
 * Replacing the copy with a newer shared file means changing this digest with it, on purpose.
 */
export const SHARED_VECTORS_SHA256 = "2392147382f40ca4590b0b3aaa1e3fd74f312ce98e215c75147160ee11a57c25";

const caseSchema = z.object({
  name: z.string(),
  signerSeedHex: z.string(),
  signerPublicKeyHex: z.string(),
  signerSs58: z.string(),
  request: z.object({
    method: z.string(),
    target: z.string(),
    timestampMs: z.string(),
    nonce: z.string(),
    body: z.string(),
    minerHotkey: z.string().nullable(),
  }),
  canonicalMessage: z.string(),
  signatureHex: z.string(),
  wrapped: z.boolean(),
  valid: z.boolean(),
});

export type SignatureVector = z.infer<typeof caseSchema>;

/** Every case of the vectors file, in file order. */
export async function signatureVectors(): Promise<SignatureVector[]> {
  const file = z.object({ scheme: z.string(), cases: z.array(caseSchema).min(1) });
  return file.parse(JSON.parse(await Deno.readTextFile(VECTORS))).cases;
}

/** SHA-256 of the shipped copy's bytes, as lowercase hex. */
export async function vectorsSha256(): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", await Deno.readFile(VECTORS));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("");
}
