"""A minimal forecasting agent for the Forecasting Gateway (docs/agents.md).

It forecasts the market itself: the event's current outcome prices, normalised to sum to one.
A real agent would do better (news, models, the gateway's LLM route); this one shows the contract.
"""


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
    """Receives the leased event (the Event resource) and returns the prediction."""
    probabilities = _market_probabilities(event)
    predicted = max(probabilities, key=probabilities.get)
    return {
        "predictedOutcomeId": predicted,
        "confidence": probabilities[predicted],
        "outcomeProbabilities": probabilities,
        "reasoning": {"method": "market prices, normalised", "question": event["question"]},
    }
