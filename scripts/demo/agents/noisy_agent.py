"""A demo agent (docs/getting_started.md, "Demo"): the market's prices plus seeded noise.

Each outcome's price moves by up to ±NOISE / 2, drawn from the SHA-256 of the seed, the event id
and the outcome id, so the same seed gives the same forecast on every run; then the probabilities
are normalised. The demo writes its `--seed` into SEED before uploading this file (an agent has no
environment to read). Noise costs accuracy: this agent is expected to lose to the market.
"""

import hashlib

SEED = 0
NOISE = 0.3
FLOOR = 0.01


def seeded_uniform(*labels):
    """A number in [0, 1) from SEED and the labels: the first 48 bits of their SHA-256."""
    text = "\0".join([str(SEED), *labels])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:6], "big") / 2**48


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
    """Receives the leased event and returns the market's prices with seeded noise."""
    market = _market_probabilities(event)
    noisy = {
        outcome_id: max(p + NOISE * (seeded_uniform("noise", event["id"], outcome_id) - 0.5), FLOOR)
        for outcome_id, p in market.items()
    }
    total = sum(noisy.values())
    probabilities = {outcome_id: p / total for outcome_id, p in noisy.items()}
    predicted = max(probabilities, key=probabilities.get)
    return {
        "predictedOutcomeId": predicted,
        "confidence": probabilities[predicted],
        "outcomeProbabilities": probabilities,
        "reasoning": {"method": f"market prices with seeded noise (seed {SEED})", "question": event["question"]},
    }
