"""Resolves one market of a copy of the sample snapshot, as of now, with the outcome you name
winning (docs/events.md, "Resolving a sample market"). The service serving the copy shifts the
file's dates, so `closedTime` is written in the file's own dates: now, minus the shift the service
applied (read from the market's served event).

    python3 docs/examples/resolve_sample_market.py /tmp/demo_snapshot.json 600024 Yes http://127.0.0.1:8080

OUTCOME is one of the market's outcome names as the file lists them (case does not matter); it
gets the price 1 and every other outcome 0, one price per outcome. The next ingestion pass reads
the edit. Exit status 2 for a bad argument, with nothing written.
"""

import json
import sys
import urllib.parse
import urllib.request
from datetime import datetime, timezone

USAGE = "usage: resolve_sample_market.py SNAPSHOT MARKET_ID OUTCOME [BASE_URL]"


def fail(message):
    print(f"error: {message}\n{USAGE}", file=sys.stderr)
    sys.exit(2)


def parse(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def winner_of(market, outcome):
    """The outcome name as the market spells it; a usage error when it is not one of them."""
    names = json.loads(market["outcomes"]) if isinstance(market["outcomes"], str) else market["outcomes"]
    matches = [name for name in names if name.casefold() == outcome.casefold()]
    if len(matches) != 1:
        fail(f"{outcome!r} is not an outcome of market {market['id']}: choose one of {', '.join(names)}")
    return names, matches[0]


def served_event(base, event_id):
    """The service's event `event_id` (ended ones included), walking the pages of /v1/events."""
    cursor = None
    while True:
        query = {"limit": "200", "includeEnded": "1", **({"cursor": cursor} if cursor else {})}
        page = json.load(urllib.request.urlopen(f"{base}/v1/events?{urllib.parse.urlencode(query)}"))
        event = next((e for e in page["items"] if e["id"] == event_id), None)
        if event is not None or page["nextCursor"] is None:
            return event
        cursor = page["nextCursor"]


def main(path, market_id, outcome, base="http://127.0.0.1:8080"):
    with open(path) as file:
        snapshot = json.load(file)
    market = next((m for m in snapshot["markets"] if str(m["id"]) == market_id), None)
    if market is None:
        fail(f"no market {market_id} in {path}")
    names, winner = winner_of(market, outcome)
    event = served_event(base.rstrip("/"), f"polymarket-{market_id}")
    if event is None:
        fail(f"{base} does not serve polymarket-{market_id}: is it running on {path} (FGW_MARKET_SOURCE=snapshot)?")
    shift = parse(event["endDate"]) - parse(market["endDate"])
    closed = datetime.now(timezone.utc) - shift
    prices = json.dumps(["1" if name == winner else "0" for name in names])
    market.update(closed=True, umaResolutionStatus="resolved", outcomePrices=prices, closedTime=closed.isoformat())
    with open(path, "w") as file:
        json.dump(snapshot, file)
    print(f"polymarket-{market_id}: resolved now, {winner} wins (closedTime {closed.isoformat()} in the file's dates)")


if __name__ == "__main__":
    if not 4 <= len(sys.argv) <= 5:
        fail("expected 3 or 4 arguments")
    main(*sys.argv[1:5])
