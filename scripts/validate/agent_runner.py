"""Runs one forecasting agent for `deno task validate` (docs/agents.md, "agent_main").

Reads `{"code": ..., "event": ...}` as JSON on stdin, writes the code to `agent.py` in the working
directory (the run's scratch directory), loads it and calls its `agent_main(event)` (awaiting it
when it is a coroutine). On stdout, the result channel, it writes the "started" mark just before
it loads `agent.py`, then one JSON envelope: {"ok": true, "result": ...} or
{"ok": false, "error": {"type", "message"}}. Whatever ends the process before the mark is the
validator's failure, never the agent's (docs/agents.md, "The started mark"). The agent's own
output (print, and its children's) goes to stderr, so that it cannot be taken for the result.

Options: `--check` answers "ok" and does nothing else (the validator's start-up check);
`--max-processes N` caps the processes and threads of the run (RLIMIT_NPROC, set inside the
sandbox's user namespace, where it counts this run's tasks alone); `--lib DIR` puts DIR first on
the import path (where the `forecasting_gateway` module lives); `--relay-socket PATH` names the
LLM relay's socket to that module (FGW_RELAY_SOCKET).
"""

import argparse
import asyncio
import importlib.util
import inspect
import json
import os
import resource
import sys

STARTED_MARK = b"fgw-runner-started\n"


def load_agent(path):
    spec = importlib.util.spec_from_file_location("agent", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


async def _awaited(awaitable):
    return await awaitable


def run_agent(event):
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


def options():
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--max-processes", type=int)
    parser.add_argument("--lib")
    parser.add_argument("--relay-socket")
    return parser.parse_args()


def prepare(args):
    """Everything before the mark: the run's own settings and the agent's file."""
    try:
        os.setsid()  # lead a process group (the sandbox has already made a session: nothing to do)
    except OSError:
        pass
    os.closerange(3, 1 << 16)  # nothing the sandbox's start may have left open
    if args.max_processes:
        resource.setrlimit(resource.RLIMIT_NPROC, (args.max_processes, args.max_processes))
    request = json.load(sys.stdin)
    with open("agent.py", "w", encoding="utf-8") as agent:
        agent.write(request["code"])
    if args.lib:
        sys.path.insert(0, args.lib)
    if args.relay_socket:
        os.environ["FGW_RELAY_SOCKET"] = args.relay_socket
    return request["event"]


def main():
    args = options()
    if args.check:
        sys.stdout.write("ok")
        return
    event = prepare(args)
    result_fd = os.dup(1)  # the envelope's channel; not inherited by the agent's children
    os.dup2(2, 1)  # from here on, fd 1 (print, children) is stderr
    os.write(result_fd, STARTED_MARK)
    text = envelope_text(event)
    sys.stdout.flush()
    with os.fdopen(result_fd, "w", encoding="utf-8") as result:
        result.write(text)


if __name__ == "__main__":
    main()
