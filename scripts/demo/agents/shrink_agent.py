"""A demo agent (docs/getting_started.md, "Demo"): the market's prices moved toward uniform.

p' = 1/n + SHRINK × (p − 1/n) for each of the n outcomes; for two outcomes 0.5 + 0.6 × (p − 0.5).
A market that is too sure of itself is beaten by an agent that is less sure: this one has an edge
whenever the truth lies between the market and a coin toss.
"""

SHRINK = 0.6


def _market_probabilities(event):
    """The event's current prices as probabilities over its outcomes (uniform when there are none)."""
    outcome_ids = [outcome["outcomeId"] for outcome in event["outcomes"]]
    prices = event.get("currentOutcomePrices") or {}
    raw = {outcome_id: max(float(prices.get(outcome_id, 0.0)), 0.0) for outcome_id in outcome_ids}
    total = sum(raw.values())
    if total <= 0:
        return {outcome_id: 1.0 / len(outcome_ids) for outcome_id in outcome_ids}
    return {outcome_id: price / total for outcome_id, price in raw.items()}


def agent_main(event):
    """Receives the leased event and returns the market's prices shrunk toward uniform."""
    market = _market_probabilities(event)
    uniform = 1.0 / len(market)
    probabilities = {outcome_id: uniform + SHRINK * (p - uniform) for outcome_id, p in market.items()}
    predicted = max(probabilities, key=probabilities.get)
    return {
        "predictedOutcomeId": predicted,
        "confidence": probabilities[predicted],
        "outcomeProbabilities": probabilities,
        "reasoning": {"method": f"market prices shrunk toward uniform by {SHRINK}", "question": event["question"]},
    }
