"""LLM calls for a forecasting agent, billed to its miner (docs/agents.md, "LLM calls").

    from forecasting_gateway import LlmError, complete, providers

    envelope = complete("echo", "echo-1", [{"role": "user", "content": "Will it rain?"}], 64)
    envelope["output"], envelope["costMicro"]

The validator running the agent serves a relay on the Unix socket `/run/fgw/relay.sock`; each call
is HTTP/1.1 over it, and the relay forwards it to the gateway for the run's lease and miner. The
relay's answers are the gateway's bodies as they are. A refusal (the gateway's, or the relay's own
429 `relay_limit` once the run's calls are spent) raises `LlmError`. Standard library only.
"""

import http.client
import json
import os
import socket

__all__ = ["LlmError", "complete", "providers", "SOCKET_PATH"]

SOCKET_PATH = "/run/fgw/relay.sock"
"""Where the relay listens inside the sandbox."""

_SOCKET_ENV = "FGW_RELAY_SOCKET"
"""Names another socket (a validator running agents without the sandbox sets it)."""

_TIMEOUT_S = 600
"""Longest wait for one answer: the run's own time limit ends the run before it."""


class LlmError(Exception):
    """A refused call: `status` (HTTP, or None when the relay could not be reached), `code`, `message`,
    and `details` (the error body's, or None)."""

    def __init__(self, status, code, message, details=None):
        super().__init__(f"{status} {code}: {message}" if status is not None else f"{code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.details = details


class _UnixConnection(http.client.HTTPConnection):
    def __init__(self, path):
        super().__init__("relay", timeout=_TIMEOUT_S)
        self._path = path

    def connect(self):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        try:
            sock.connect(self._path)
        except OSError:
            sock.close()
            raise
        self.sock = sock


def _socket_path():
    return os.environ.get(_SOCKET_ENV) or SOCKET_PATH


def _exchange(method, path, body):
    connection = _UnixConnection(_socket_path())
    try:
        headers = {} if body is None else {"Content-Type": "application/json"}
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        return response.status, response.read()
    except (OSError, http.client.HTTPException) as error:
        raise LlmError(None, "relay_unreachable", str(error) or type(error).__name__) from error
    finally:
        connection.close()


def _refusal(status, data):
    try:
        error = json.loads(data)["error"]
        return LlmError(status, str(error["code"]), str(error.get("message", "")), error.get("details"))
    except (ValueError, KeyError, TypeError):
        return LlmError(status, "invalid_answer", data[:200].decode("utf-8", "replace"))


def _call(method, path, payload=None):
    body = None if payload is None else json.dumps(payload).encode("utf-8")
    status, data = _exchange(method, path, body)
    if status != 200:
        raise _refusal(status, data)
    try:
        return json.loads(data)
    except ValueError as error:
        raise LlmError(status, "invalid_answer", "the answer is not JSON") from error


def complete(provider, model, messages, max_tokens, *, temperature=None, top_p=None, stop=None):
    """One completion: `messages` is a list of {"role", "content"}; returns the gateway's envelope
    (`output`, `usage`, `costMicro`, …) as a dict; raises `LlmError` when the call is refused."""
    payload = {"provider": provider, "model": model, "messages": messages, "maxTokens": max_tokens}
    if temperature is not None:
        payload["temperature"] = temperature
    if top_p is not None:
        payload["topP"] = top_p
    if stop is not None:
        payload["stop"] = stop
    return _call("POST", "/v1/gateway/completions", payload)


def providers():
    """The gateway's providers: a list of {"id", "models", "allowsAnyModel"}."""
    return _call("GET", "/v1/gateway/providers")["providers"]
