"""A demo agent (docs/getting_started.md, "Demo") that asks an LLM through the validator's relay,
billed to its miner's organisation, then shrinks toward uniform by SHRINK.

It sends the question and the market's prices to the model and reads the first JSON object of the
answer as probabilities; when the answer gives none (the built-in `echo` provider answers the
prompt itself) or the call is refused, it starts from the market's prices. Either way it returns
p' = 1/n + SHRINK × (p − 1/n) for each of the n outcomes, so its prediction is valid, and it says
in its reasoning what the model answered and what the call cost.
"""

import json

from forecasting_gateway import LlmError, complete

PROVIDER = "echo"
MODEL = "echo-1"
MAX_TOKENS = 64
SHRINK = 0.8
ANSWER_SHOWN = 500
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
    lines = [f"Question: {event['question']}", "Outcomes (id: name, market price):"]
    lines += [f"- {o['outcomeId']}: {o['name']}, {market[o['outcomeId']]:.3f}" for o in event["outcomes"]]
    lines.append("Answer with one JSON object: each outcome id as a key, your probability as its value.")
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
    llm = {"model": f"{PROVIDER}/{MODEL}", "costMicro": envelope.get("costMicro"), "answer": output[:ANSWER_SHOWN]}
    return parse_probabilities(output, list(market)), llm


def agent_main(event):
    """Receives the leased event and returns the prediction (see the module comment)."""
    market = _market_probabilities(event)
    asked, llm = _ask(event, market)
    start, source = (market, "the market's prices") if asked is None else (asked, "the model's probabilities")
    uniform = 1.0 / len(start)
    probabilities = {outcome_id: uniform + SHRINK * (p - uniform) for outcome_id, p in start.items()}
    predicted = max(probabilities, key=probabilities.get)
    return {
        "predictedOutcomeId": predicted,
        "confidence": probabilities[predicted],
        "outcomeProbabilities": probabilities,
        "reasoning": {"method": f"{source} shrunk toward uniform by {SHRINK}", "question": event["question"], "llm": llm},
    }
