import type { SyntaxNode, Tree } from "@lezer/common";
import { parser } from "@lezer/python";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { ServiceError } from "../kernel/mod.ts";

/** The function every agent defines at the top level of its file (docs/agents.md). */
export const AGENT_ENTRY_POINT = "agent_main";

/** An agent's source that passed `checkAgentSource`. */
export interface CheckedAgentSource {
  /** Lowercase hex SHA-256 of the code's UTF-8 bytes. */
  sha256: string;
  /** Size of the code in UTF-8 bytes. */
  sizeBytes: number;
}

/** A place in the source, 1-based; the column counts characters (code points). */
export interface SourcePosition {
  line: number;
  column: number;
}

export interface CheckAgentSourceOptions {
  /** Most UTF-8 bytes the code may have (413 past it). */
  maxBytes: number;
  /**
   * The clock the parsing work is measured on, in milliseconds: its slices and its budget
   * (default `performance.now`; tests drive the budget with their own).
   */
  workClock?: () => number;
}

/**
 * Checks a miner's Python source before it is stored, in this order: it must be well-formed
 * Unicode (a lone surrogate has no UTF-8 form) → 400; at most `maxBytes` UTF-8 bytes → 413
 * `payload_too_large`; no NUL character (Python refuses it) → 400 naming the line; it must parse
 * as Python 3 with `@lezer/python` (no error node) → 400 naming the line and column of the first
 * error, or 400 when parsing it takes more than `PARSE_BUDGET_MS` of work (`parsePython`); and it
 * must define `agent_main` with a top-level `def` or `async def` (decorators allowed), not only in
 * a comment, a string, a class, a function or an `if`/`try` block → 400.
 */
export async function checkAgentSource(
  code: string,
  options: CheckAgentSourceOptions,
): Promise<CheckedAgentSource> {
  if (!code.isWellFormed()) {
    const at = firstLoneSurrogate(code);
    throw invalidCode(`Must be valid UTF-8: it has an unpaired surrogate at ${where(positionAt(code, at))}`);
  }
  const bytes = utf8ToBytes(code);
  if (bytes.length > options.maxBytes) {
    throw new ServiceError(
      "payload_too_large",
      `Agent code is too large: ${bytes.length} bytes, the limit is ${options.maxBytes}`,
      { details: { maxBytes: options.maxBytes, sizeBytes: bytes.length } },
    );
  }
  const nul = code.indexOf("\0");
  if (nul !== -1) throw syntaxError(code, nul, "it contains a NUL character");
  // A leading byte-order mark is allowed (Python skips it); it is one character, on line 1.
  const source = code.startsWith("\uFEFF") ? code.slice(1) : code;
  const tree = await parsePython(source, options.workClock ?? (() => performance.now()));
  const error = firstErrorOffset(tree);
  if (error !== null) throw syntaxError(source, error, "it does not parse as Python 3");
  requireEntryPoint(tree, source);
  return { sha256: bytesToHex(sha256(bytes)), sizeBytes: bytes.length };
}

/**
 * Most parsing work one check may take. A real 1 MiB Python file parses in about 0.3 s here; code
 * made to be slow for the error-tolerant parser (a megabyte of nested brackets) takes seconds.
 */
export const PARSE_BUDGET_MS = 2_000;
/** Parsing work between two turns of the event loop, which other requests get meanwhile. */
const PARSE_SLICE_MS = 5;
/** Parser steps between two reads of the clock (a real 1 MiB file takes about 200,000 steps). */
const ADVANCES_PER_CLOCK_READ = 64;

/**
 * `source` parsed in slices of about `PARSE_SLICE_MS`, yielding to the event loop between them, so
 * that an upload never stalls the instance's other requests; past `PARSE_BUDGET_MS` of work it
 * gives up with 400.
 */
async function parsePython(source: string, workClock: () => number): Promise<Tree> {
  const parse = parser.startParse(source);
  let spentMs = 0;
  for (;;) {
    const sliceStart = workClock();
    let tree: Tree | null = null;
    // The clock is read every `ADVANCES_PER_CLOCK_READ` steps (a step is a few µs of work).
    while (tree === null && workClock() - sliceStart < PARSE_SLICE_MS) {
      for (let step = 0; tree === null && step < ADVANCES_PER_CLOCK_READ; step++) tree = parse.advance();
    }
    spentMs += workClock() - sliceStart;
    if (tree !== null) return tree;
    if (spentMs > PARSE_BUDGET_MS) {
      throw invalidCode(
        `Too complex to check: parsing it took more than ${PARSE_BUDGET_MS} ms (real agents take a fraction of that)`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}

/** The 1-based line and column of `offset` (a UTF-16 index) in `text`; `\r\n`, `\r`, `\n` end lines. */
export function positionAt(text: string, offset: number): SourcePosition {
  const before = text.slice(0, offset);
  const breaks = before.match(/\r\n|\r|\n/g) ?? [];
  const lineStart = Math.max(before.lastIndexOf("\n"), before.lastIndexOf("\r")) + 1;
  return { line: breaks.length + 1, column: Array.from(before.slice(lineStart)).length + 1 };
}

function where({ line, column }: SourcePosition): string {
  return `line ${line}, column ${column}`;
}

function invalidCode(problem: string, extra: Partial<SourcePosition> = {}): ServiceError {
  return new ServiceError("invalid_request", `Invalid agent code: ${problem}`, {
    details: { fields: [{ field: "code", problem }], ...extra },
  });
}

function syntaxError(source: string, offset: number, why: string): ServiceError {
  const position = positionAt(source, offset);
  return invalidCode(`Syntax error at ${where(position)}: ${why}`, position);
}

function firstLoneSurrogate(code: string): number {
  for (let i = 0; i < code.length; i++) {
    const unit = code.charCodeAt(i);
    const isHigh = unit >= 0xd800 && unit <= 0xdbff;
    const next = code.charCodeAt(i + 1);
    if (isHigh && next >= 0xdc00 && next <= 0xdfff) i++;
    else if (unit >= 0xd800 && unit <= 0xdfff) return i;
  }
  return code.length;
}

/** Offset of the first error node of the parse, or null when the source parsed cleanly. */
function firstErrorOffset(tree: Tree): number | null {
  let found: number | null = null;
  tree.iterate({
    enter(node) {
      if (found !== null) return false;
      if (node.type.isError) found = node.from;
      return found === null;
    },
  });
  return found;
}

/** Throws 400 unless a statement of the module itself is `def agent_main` / `async def agent_main`. */
function requireEntryPoint(tree: Tree, source: string): void {
  for (let statement = tree.topNode.firstChild; statement; statement = statement.nextSibling) {
    const definition = statement.name === "DecoratedStatement"
      ? statement.getChild("FunctionDefinition")
      : statement;
    if (definition?.name === "FunctionDefinition" && functionName(definition, source) === AGENT_ENTRY_POINT) {
      return;
    }
  }
  const nested = nestedEntryPoint(tree, source);
  if (nested !== null) {
    const position = positionAt(source, nested);
    throw invalidCode(
      `${AGENT_ENTRY_POINT} must be defined at the top level of the file: the one at ${
        where(position)
      } is inside a class, a function or a block`,
      position,
    );
  }
  throw invalidCode(`Must define ${AGENT_ENTRY_POINT} with a top-level def or async def`);
}

function functionName(definition: SyntaxNode, source: string): string | null {
  const name = definition.getChild("VariableName");
  return name ? source.slice(name.from, name.to) : null;
}

/** Offset of a `def agent_main` below the top level, or null. */
function nestedEntryPoint(tree: Tree, source: string): number | null {
  let found: number | null = null;
  tree.iterate({
    enter(node) {
      if (found !== null) return false;
      if (node.name === "FunctionDefinition" && functionName(node.node, source) === AGENT_ENTRY_POINT) {
        found = node.from;
      }
      return found === null;
    },
  });
  return found;
}
