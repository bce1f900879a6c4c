/** The lines of a byte stream (UTF-8), without their line breaks; a last line without one too. */
export async function* lines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let pending = "";
  for await (const chunk of stream) {
    const parts = (pending + decoder.decode(chunk, { stream: true })).split("\n");
    pending = parts.pop() ?? "";
    yield* parts;
  }
  pending += decoder.decode();
  if (pending !== "") yield pending;
}
