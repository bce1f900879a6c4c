import { z } from "zod";

/**
 * The interop vectors of request signatures (docs/signatures.md, "Worked example"), in
 * tests/validators/golden/signatures-v1.json, a copy of a file the subnet's projects share;
 * `sharedVectorsText` reads that shared original when a checkout of it sits beside the
 * repository (CI), to prove the copy is unchanged.
 */
const VECTORS = new URL("../validators/golden/signatures-v1.json", import.meta.url);
const SHARED_VECTORS = new URL("../../../shared/golden/signatures-v1.json", import.meta.url);

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

/** The text of the vendored copy, and of the shared original when present (else null). */
export async function vectorTexts(): Promise<{ vendored: string; shared: string | null }> {
  const vendored = await Deno.readTextFile(VECTORS);
  try {
    return { vendored, shared: await Deno.readTextFile(SHARED_VECTORS) };
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return { vendored, shared: null };
    throw error;
  }
}
