import type { Child } from "hono/jsx";
import { usePageNotice } from "./page_notice.tsx";

/** The pages of the main navigation, in order: path and label. */
export const NAVIGATION: ReadonlyArray<readonly [string, string]> = [
  ["/leaderboard", "Leaderboard"],
  ["/events", "Events"],
  ["/scored", "Scored events"],
  ["/methodology", "Methodology"],
  ["/docs", "API reference"],
];

export interface LayoutProps {
  /** The page's own title (the document title adds the service's name). */
  title: string;
  /** The path of the page, to mark its navigation link as current. */
  path: string;
  /** A page around a wide table: the page may use more of a wide screen (90rem, not 72rem). */
  wide?: boolean;
  children?: Child;
}

/**
 * Every page's document: head (stylesheet and icon, both served by the service), a skip link, the
 * navigation, the page (after the request's notice, if one was set: page_notice.tsx), and a footer
 * pointing at the JSON API. No script and no inline style.
 */
export function Layout(props: LayoutProps) {
  const notice = usePageNotice();
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{props.title} · Forecasting Gateway</title>
        <link rel="stylesheet" href="/assets/site.css" />
        <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
      </head>
      <body class={props.wide ? "wide" : undefined}>
        <a class="skip" href="#main">Skip to content</a>
        <header class="site">
          <nav aria-label="Main">
            <a class="brand" href="/" aria-current={props.path === "/" ? "page" : undefined}>
              Forecasting Gateway
            </a>
            <ul>
              {NAVIGATION.map(([href, label]) => (
                <li>
                  <a href={href} aria-current={isCurrent(props.path, href) ? "page" : undefined}>{label}</a>
                </li>
              ))}
            </ul>
          </nav>
        </header>
        <main id="main">
          {notice ?? ""}
          {props.children}
        </main>
        <footer class="site">
          <p>
            Every figure on these pages is also in the public JSON API: <a href="/docs">API reference</a>,
            {" "}
            <a href="/openapi.json">OpenAPI document</a>.
          </p>
        </footer>
      </body>
    </html>
  );
}

function isCurrent(path: string, href: string): boolean {
  return path === href || path.startsWith(`${href}/`);
}
