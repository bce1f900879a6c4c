/** The lines of a byte stream (UTF-8), without their line breaks; a last line without one too. */
export async function* lines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  let pending = "";
  for await (const text of stream.pipeThrough(new TextDecoderStream())) {
    const parts = (pending + text).split("\n");
    pending = parts.pop() ?? "";
    yield* parts;
  }
  if (pending !== "") yield pending;
}
