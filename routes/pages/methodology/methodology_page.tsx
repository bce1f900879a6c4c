import type { Context } from "hono";
import { type Methodology, methodologyOf, type ScoringSettings } from "../../../actors/scoring/mod.ts";
import { Provenance } from "../kit/blocks.tsx";
import { Layout } from "../kit/layout.tsx";
import { htmlOf } from "../kit/render.ts";
import { sendPage } from "../kit/page_answer.ts";
import { ConstantsTable } from "./constants_table.tsx";
import { ExampleEvents, ExamplePredictions } from "./example_inputs.tsx";
import { ExampleEventStats, ExampleMiners, ExampleScores } from "./example_results.tsx";
import { PageFigures } from "./page_figures_section.tsx";
import { duration, Payouts, PerEvent, PerMiner, PerPrediction, Runs } from "./scorer_sections.tsx";

function Settings(props: { methodology: Methodology }) {
  const { settings } = props.methodology;
  return (
    <section aria-labelledby="settings">
      <h2 id="settings">This deployment's settings</h2>
      <p>The running configuration that changes what the scorer is given:</p>
      <dl class="figures">
        <div data-setting="windowDays">
          <dt>Window (FGW_SCORING_WINDOW_DAYS)</dt>
          <dd>{settings.windowDays} days</dd>
        </div>
        <div data-setting="scoringIntervalMs">
          <dt>Scoring interval (FGW_SCORING_INTERVAL_MS)</dt>
          <dd>{duration(settings.scoringIntervalMs)}</dd>
        </div>
        <div data-setting="forecastingWeightShare">
          <dt>Forecasting weight share (FGW_FORECASTING_WEIGHT_SHARE)</dt>
          <dd>{settings.forecastingWeightShare}</dd>
        </div>
      </dl>
    </section>
  );
}

function WorkedExampleSection(props: { methodology: Methodology }) {
  const { example } = props.methodology;
  return (
    <section aria-labelledby="example">
      <h2 id="example">Worked example</h2>
      <p>
        A fixed input — {example.input.events.length} events, {example.input.registrations.length} miners,
        {" "}
        {example.input.predictions.length}{" "}
        predictions — scored by scorer v1 itself when this page is first served, with its own{" "}
        {example.input.windowDays}-day window. Miner a forecasts further from the market than it, mostly
        towards the winner; miner b stays close to the market; miner c changes its mind once (only the later
        prediction counts), and three of its four counted predictions are invalid. Event <code>ex-6</code>
        {" "}
        resolved before the window: it has its statistics but is in no miner's rows.
      </p>
      <h3>Inputs</h3>
      <ExampleEvents example={example} />
      <ExamplePredictions example={example} />
      <h3>Per-prediction scores</h3>
      <ExampleScores example={example} />
      <ExampleEventStats example={example} />
      <h3>Miner figures and payouts</h3>
      <ExampleMiners example={example} />
      <p>
        The same numbers: <a href="/v1/scoring/methodology">GET /v1/scoring/methodology</a>{" "}
        (<code>example</code>); <code>deno task score FILE</code> on its <code>example.input</code>{" "}
        prints them too.
      </p>
    </section>
  );
}

function MethodologyDocument(props: { methodology: Methodology }) {
  const m = props.methodology;
  return (
    <Layout title="Methodology" path="/methodology">
      <h1>Methodology: scorer v{m.scorerVersion}</h1>
      <Provenance
        computedAt={m.example.input.computedAt}
        window={`the worked example's ${m.example.input.windowDays}-day window`}
        note="The example's time is fixed; the settings are this deployment's running configuration."
      />
      <p class="lead">
        How miners are scored and paid. Scoring is a set of pure functions of the scored predictions and the
        events' resolutions, so anyone can recompute every number from the public scored-predictions feed.
        Every constant and figure on this page is also in{" "}
        <a href="/v1/scoring/methodology">GET /v1/scoring/methodology</a>.
      </p>
      <Settings methodology={m} />
      <PerPrediction />
      <PerEvent />
      <PerMiner settings={m.settings} />
      <Payouts settings={m.settings} />
      <Runs settings={m.settings} />
      <section aria-labelledby="constants">
        <h2 id="constants">Constants</h2>
        <ConstantsTable caption="Scorer v1's constants" constants={m.constants} />
      </section>
      <WorkedExampleSection methodology={m} />
      <PageFigures example={m.example} constants={m.pageFigureConstants} />
    </Layout>
  );
}

/**
 * `GET /methodology`: scorer v1 from its exported constants, this deployment's settings and the
 * worked example (`methodologyOf`, as `GET /v1/scoring/methodology`). Nothing on it changes while
 * the service runs, so it is rendered once, on the first request.
 */
export function methodologyPage(settings: ScoringSettings): (c: Context) => Promise<Response> {
  let html: Promise<string> | null = null;
  return async (c) => {
    html ??= htmlOf(<MethodologyDocument methodology={methodologyOf(settings)} />).catch((error) => {
      html = null;
      throw error;
    });
    return sendPage(c, await html);
  };
}
