/** The shape of one `deno task admin` command: what the command table and its parts share. */

/** Parsed `--options` of one CLI invocation. */
export type AdminOptions = Record<string, string | boolean | undefined>;

/** One HTTP call of the admin API. */
export interface AdminCall {
  method: "GET" | "POST" | "DELETE";
  path: string;
  body?: unknown;
}

/** One CLI command: its words, positional arguments, options, the call it makes and how it prints. */
export interface AdminCommand {
  words: string[];
  args: string[];
  options?: string[];
  /** Options the command cannot do without (a usage error names them before anything is sent). */
  required?: string[];
  summary: string;
  call(args: string[], options: AdminOptions): AdminCall;
  render?(body: unknown, args: string[]): string;
}
