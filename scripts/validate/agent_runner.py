"""Runs one forecasting agent for `deno task validate` (docs/agents.md, "agent_main").

Reads the leased event as JSON on stdin, loads `agent.py` from the working directory and calls its
`agent_main(event)` (awaiting it when it is a coroutine). It writes one JSON envelope on stdout:
{"ok": true, "result": ...} or {"ok": false, "error": {"type", "message"}}. The agent's own output
(print, and its children's) goes to stderr, so that it cannot be taken for the result. The runner
leads its own process group, so that the validator's kill at the time limit reaches every process
the agent started. `--check` answers "ok" and does nothing else (the validator's start-up check).
"""

import asyncio
import importlib.util
import inspect
import json
import os
import sys


def load_agent(path):
    spec = importlib.util.spec_from_file_location("agent", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


async def _awaited(awaitable):
    return await awaitable


# The modules a validator offers every agent (`forecasting_gateway`), beside this runner.
MODULES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "python")


def run_agent(event):
    sys.dont_write_bytecode = True  # `-I` ignores PYTHONDONTWRITEBYTECODE: no cache beside the modules
    sys.path.insert(0, MODULES)
    result = load_agent("agent.py").agent_main(event)
    if inspect.isawaitable(result):
        result = asyncio.run(_awaited(result))
    return result


def failure(error):
    text = str(error)
    return {"ok": False, "error": {"type": type(error).__name__, "message": text.splitlines()[0] if text else ""}}


def envelope_text(event):
    try:
        envelope = {"ok": True, "result": run_agent(event)}
    except BaseException as error:  # the run failed, whatever the reason (SystemExit included)
        envelope = failure(error)
    try:
        return json.dumps(envelope, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as error:  # the result is not JSON
        return json.dumps(failure(error))


def main():
    if sys.argv[1:] == ["--check"]:
        sys.stdout.write("ok")
        return
    os.setsid()
    result_fd = os.dup(1)  # the envelope's channel; not inherited by the agent's children
    os.dup2(2, 1)  # from here on, fd 1 (print, children) is stderr
    event = json.load(sys.stdin)
    text = envelope_text(event)
    sys.stdout.flush()
    with os.fdopen(result_fd, "w", encoding="utf-8") as result:
        result.write(text)


if __name__ == "__main__":
    main()
