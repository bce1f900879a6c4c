/**
 * Reads a page's GET form as a browser would send it (the pages' own markup: `<input>` and
 * `<select>` with `name`, `value`, `selected`), and follows the page's answer to a submission.
 */
import assert from "node:assert/strict";
import type { TestService } from "../support/test_service.ts";

export const HTML = { accept: "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8" };

export interface FormField {
  name: string;
  /** What the field holds: an input's value, a select's selected option. */
  value: string;
  type: string;
  id: string | undefined;
}

/** The fields of the form sent to `action`, in document order. */
export function formFields(html: string, action: string): FormField[] {
  const form = html.match(new RegExp(`<form[^>]*action="${action}"[^>]*>([\\s\\S]*?)</form>`));
  assert.ok(form, `a form sent to ${action}`);
  const fields: FormField[] = [];
  for (const match of form[1]!.matchAll(/<input([^>]*)>|<select([^>]*)>([\s\S]*?)<\/select>/g)) {
    const attributes = match[1] ?? match[2]!;
    const name = attribute(attributes, "name");
    if (name === undefined) continue;
    const id = attribute(attributes, "id");
    if (match[1] !== undefined) {
      fields.push({
        name,
        value: attribute(attributes, "value") ?? "",
        type: attribute(attributes, "type")!,
        id,
      });
    } else {
      const selected = match[3]!.match(/<option value="([^"]*)" selected>/);
      fields.push({ name, value: unescape(selected?.[1] ?? ""), type: "select", id });
    }
  }
  return fields;
}

/** The labels of the form: `for` ids. */
export function labelledIds(html: string): string[] {
  return [...html.matchAll(/<label for="([^"]+)"/g)].map((m) => m[1]!);
}

/** The query string a browser sends for `fields` with `changes` typed in (every field, empty or not). */
export function submission(fields: readonly FormField[], changes: Record<string, string> = {}): string {
  const values = new URLSearchParams();
  for (const field of fields) values.append(field.name, changes[field.name] ?? field.value);
  return `?${values}`;
}

/** Asks `path` as a browser, following the page's 303 (if any) once; the final path and answer. */
export async function browse(
  service: TestService,
  path: string,
): Promise<{ path: string; response: Response }> {
  const first = await service.request(path, { headers: HTML, redirect: "manual" });
  if (first.status !== 303) return { path, response: first };
  await first.body?.cancel();
  const location = first.headers.get("location")!;
  return { path: location, response: await service.request(location, { headers: HTML }) };
}

/** The parameters of a path's query string as sorted `name=value` pairs (decoded). */
export function pairs(path: string): string[] {
  const at = path.indexOf("?");
  return [...new URLSearchParams(at === -1 ? "" : path.slice(at))].map(([k, v]) => `${k}=${v}`).sort();
}

function attribute(attributes: string, name: string): string | undefined {
  const found = attributes.match(new RegExp(`(?:^|\\s)${name}="([^"]*)"`));
  return found ? unescape(found[1]!) : undefined;
}

function unescape(text: string): string {
  return text.replaceAll("&quot;", '"').replaceAll("&#39;", "'").replaceAll("&lt;", "<").replaceAll(
    "&gt;",
    ">",
  )
    .replaceAll("&amp;", "&");
}
