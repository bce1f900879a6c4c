"""Runs one forecasting agent for `deno task validate` (docs/agents.md, "agent_main").

Reads the leased event as JSON on stdin, loads `agent.py` from the working directory, calls its
`agent_main(event)` (awaiting it when it is a coroutine) and writes the result as one JSON object on
stdout. Any failure (the import, the call, a result that is not JSON) ends the process with a
non-zero status and the error's last line on stderr: the validator then submits a failed run.
"""

import asyncio
import importlib.util
import inspect
import json
import sys


def load_agent(path):
    spec = importlib.util.spec_from_file_location("agent", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


async def _awaited(awaitable):
    return await awaitable


def main():
    event = json.load(sys.stdin)
    result = load_agent("agent.py").agent_main(event)
    if inspect.isawaitable(result):
        result = asyncio.run(_awaited(result))
    sys.stdout.write(json.dumps(result, allow_nan=False))


if __name__ == "__main__":
    try:
        main()
    except BaseException as error:  # the run failed, whatever the reason: say which, in one line
        message = str(error).splitlines()[0] if str(error) else ""
        sys.stderr.write(f"{type(error).__name__}: {message}\n")
        sys.exit(1)
