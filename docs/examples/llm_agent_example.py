"""A forecasting agent that asks an LLM, billed to its miner (docs/agents.md, "LLM calls").

It asks the model for a probability per outcome and averages its answer with the market's prices.
Whatever goes wrong with the call — refused (`LlmError`: the miner's cap spent, the run's calls
spent), or an answer that cannot be read (the built-in `echo` provider answers the prompt itself) —
it still returns a valid prediction: the market's prices, saying why in its reasoning.

With the `echo` provider it runs on any development gateway; set PROVIDER and MODEL to a provider
and model of `GET /v1/gateway/providers` (e.g. "openai", "gpt-4o-mini") to ask a real one. An agent
has no environment to read: the settings are in the code.
"""

import json

from forecasting_gateway import LlmError, complete

PROVIDER = "echo"
MODEL = "echo-1"
MAX_TOKENS = 200
ANSWER_SHOWN = 2000
"""Characters of the model's answer kept in the reasoning."""


def _market_probabilities(event):
    """The event's current prices as probabilities over its outcomes (uniform when there are none)."""
    outcome_ids = [outcome["outcomeId"] for outcome in event["outcomes"]]
    prices = event.get("currentOutcomePrices") or {}
    raw = {outcome_id: max(float(prices.get(outcome_id, 0.0)), 0.0) for outcome_id in outcome_ids}
    total = sum(raw.values())
    if total <= 0:
        return {outcome_id: 1.0 / len(outcome_ids) for outcome_id in outcome_ids}
    return {outcome_id: price / total for outcome_id, price in raw.items()}


def _prompt(event, market):
    lines = [
        "You forecast the outcome of a prediction market question.",
        f"Question: {event['question']}",
        f"Description: {(event.get('description') or '')[:1500]}",
        f"Ends: {event.get('endDate')}",
        "Outcomes (id: name, market price):",
    ]
    lines += [f"- {o['outcomeId']}: {o['name']}, {market[o['outcomeId']]:.3f}" for o in event["outcomes"]]
    lines.append(
        "Answer with one JSON object only: each outcome id above as a key, your probability as its "
        "value, the values summing to 1."
    )
    return "\n".join(lines)


def parse_probabilities(text, outcome_ids):
    """The model's probabilities, normalised, from the first JSON object in `text`; None when the
    text holds no object giving a non-negative number to every outcome id."""
    start = text.find("{")
    if start < 0:
        return None
    try:
        answer, _ = json.JSONDecoder().raw_decode(text[start:])
    except ValueError:
        return None
    if not isinstance(answer, dict):
        return None
    values = {}
    for outcome_id in outcome_ids:
        value = answer.get(outcome_id)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < float("inf"):
            return None
        values[outcome_id] = float(value)
    total = sum(values.values())
    if total <= 0:
        return None
    return {outcome_id: value / total for outcome_id, value in values.items()}


def _ask(event, market):
    """The model's probabilities (or None) and what to say about the call in the reasoning."""
    messages = [{"role": "user", "content": _prompt(event, market)}]
    try:
        envelope = complete(PROVIDER, MODEL, messages, MAX_TOKENS, temperature=0)
    except LlmError as error:
        return None, {"status": error.status, "code": error.code, "message": error.message}
    output = envelope.get("output") or ""
    llm = {
        "model": f"{PROVIDER}/{MODEL}",
        "costMicro": envelope.get("costMicro"),
        "answer": output[:ANSWER_SHOWN],
    }
    return parse_probabilities(output, list(market)), llm


def agent_main(event):
    """Receives the leased event and returns the prediction (see the module comment)."""
    market = _market_probabilities(event)
    asked, llm = _ask(event, market)
    if asked is None:
        probabilities, method = market, "market prices (the model gave no usable answer)"
    else:
        probabilities = {outcome_id: (market[outcome_id] + asked[outcome_id]) / 2 for outcome_id in market}
        method = "mean of the market's prices and the model's probabilities"
    predicted = max(probabilities, key=probabilities.get)
    return {
        "predictedOutcomeId": predicted,
        "confidence": probabilities[predicted],
        "outcomeProbabilities": probabilities,
        "reasoning": {"method": method, "question": event["question"], "llm": llm},
    }
