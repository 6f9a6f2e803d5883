"""One worker process of the two-process single-flight test (``test_single_flight_processes``).

``python -m tests.llm.single_flight_worker SPEC``: SPEC is JSON ``{"go": path, "chunks": [[item numbers]]}``.
The database and the endpoint come from the environment (DATABASE_URL, LLM_*). The worker sets Django up,
prints ``ready``, waits for the file ``go`` to exist, judges each chunk with one ``judge`` call, and prints
one JSON line per chunk: requests, cache hits, cost, and the calls its plan still had to make.
"""

import json
import sys
import time
from pathlib import Path

GV = "layer3.gv_relevance@1"


def variables(number: int) -> dict:
    return {"concernText": "転職するか迷っています", "generatedText": f"選択肢 {number} の利点", "widgetType": "list"}


def main() -> None:
    spec = json.loads(sys.argv[1])
    import django

    django.setup()
    from llm.services import Item, judge

    go = Path(spec["go"])
    print("ready", flush=True)
    deadline = time.monotonic() + 60
    while not go.exists():
        if time.monotonic() > deadline:
            sys.exit("never told to start")
        time.sleep(0.002)
    for chunk in spec["chunks"]:
        report = judge(GV, [Item(f"item-{n}", variables(n)) for n in chunk], backend="llm")
        line = {
            "planned": report.estimate.calls,  # questions not yet answered when this run planned
            "requests": report.requests,
            "cache_hits": report.cache_hits,
            "cost_usd": report.cost_usd,
            "cost_jpy": report.cost_jpy,
            "counts": report.counts,
        }
        print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
