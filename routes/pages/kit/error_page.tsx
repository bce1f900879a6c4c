import type { Context } from "hono";
import { ServiceError } from "../../../actors/kernel/mod.ts";
import { errorResponse, STATUS_OF } from "../../middleware/error_handler.ts";
import { Layout } from "./layout.tsx";
import { renderPage } from "./render.ts";
import { wantsJson } from "./page_answer.ts";

const HEADINGS: Partial<Record<string, string>> = {
  invalid_request: "That request has a problem",
  not_found: "Not found",
  insufficient_role: "Only an owner may do this",
  unavailable: "Temporarily unavailable",
};

interface FieldProblem {
  field: string;
  problem: string;
}

/**
 * A refusal as a page: its status, a heading, the message and each bad field named (the same
 * `details.fields` the JSON error body carries), or the JSON error body itself when the client
 * asks for JSON.
 */
export function errorPage(c: Context, error: ServiceError): Response | Promise<Response> {
  if (wantsJson(c)) return errorResponse(c, error);
  const fields = fieldsOf(error);
  const heading = HEADINGS[error.code] ?? "Something went wrong";
  return renderPage(
    c,
    <Layout title={heading} path={c.req.path}>
      <h1 data-error-code={error.code}>{heading}</h1>
      <p>{error.message.replace(/\.+$/, "")}.</p>
      {fields.length > 0
        ? (
          <ul class="problems">
            {fields.map((f) => (
              <li>
                <code>{f.field}</code>: {f.problem}
              </li>
            ))}
          </ul>
        )
        : ""}
      {new URL(c.req.url).search === ""
        ? (
          <p>
            Go to the <a href="/">home page</a>.
          </p>
        )
        : (
          <p>
            <a href={c.req.path}>Start again without parameters</a> or go to the <a href="/">home page</a>.
          </p>
        )}
    </Layout>,
    STATUS_OF[error.code],
  );
}

/** A page's handler whose refusals (`ServiceError`) are answered as pages (see `errorPage`). */
export function pageHandler(render: (c: Context) => Promise<Response>) {
  return async (c: Context): Promise<Response> => {
    try {
      return await render(c);
    } catch (error) {
      if (error instanceof ServiceError) return errorPage(c, error);
      throw error;
    }
  };
}

/** The 404 page of a path no route serves (a browser's request; API clients get the JSON body). */
export function notFoundPage(c: Context): Response | Promise<Response> {
  return errorPage(c, new ServiceError("not_found", `Nothing is served at ${c.req.path}`));
}

function fieldsOf(error: ServiceError): FieldProblem[] {
  const fields = error.details?.fields;
  if (!Array.isArray(fields)) return [];
  return fields.filter((f): f is FieldProblem =>
    typeof f === "object" && f !== null && typeof f.field === "string" && typeof f.problem === "string"
  );
}
