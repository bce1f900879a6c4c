"""Resolves one market of a copy of the sample snapshot, as of now (docs/events.md, "Resolving a
sample market"): the service serving the copy shifts the file's dates, so `closedTime` is written
in the file's own dates — now, minus the shift the service applied (read from one served event).

    python3 docs/examples/resolve_sample_market.py /tmp/demo_snapshot.json 600334 http://127.0.0.1:8080

The first outcome wins; the next ingestion pass reads the edit.
"""

import json
import sys
import urllib.request
from datetime import datetime, timezone


def parse(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def main(path, market_id, base):
    served = json.load(urllib.request.urlopen(f"{base}/v1/events?limit=200"))["items"]
    event = next(e for e in served if e["id"] == f"polymarket-{market_id}")
    with open(path) as file:
        snapshot = json.load(file)
    market = next(m for m in snapshot["markets"] if str(m["id"]) == market_id)
    shift = parse(event["endDate"]) - parse(market["endDate"])
    closed = datetime.now(timezone.utc) - shift
    market.update(closed=True, umaResolutionStatus="resolved", outcomePrices='["1","0"]', closedTime=closed.isoformat())
    with open(path, "w") as file:
        json.dump(snapshot, file)
    print(f"polymarket-{market_id}: resolved now (closedTime {closed.isoformat()} in the file's dates)")


if __name__ == "__main__":
    main(*sys.argv[1:4])
