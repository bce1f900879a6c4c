# The escape suite's probes of the run's LLM relay (see escape_probes.py, which this text follows).
# Each call's prompt carries "fgw-escape-<marker> <check>/<variant>", so that what reached the
# gateway's validator route can be told apart by check (escape_relay.ts).
import asyncio
import http.client
import json


def relay_path():
    return os.environ.get("FGW_RELAY_SOCKET") or "/run/fgw/relay.sock"


def tagged_body(variant, **extra):
    content = f"fgw-escape-{PARAMS['marker']} {CHECK.replace('_', '-')}/{variant}"
    return {"provider": "echo", "model": "echo-1", "messages": [{"role": "user", "content": content}],
            "maxTokens": 16, **extra}


class RelayConnection(http.client.HTTPConnection):
    def __init__(self):
        super().__init__("relay", timeout=120)

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(relay_path())


def relay_post(body, headers=None, path="/v1/gateway/completions"):
    """(status, error code or None) of one POST to the relay; status None when it cannot be reached."""
    connection = RelayConnection()
    try:
        connection.request("POST", path, body=json.dumps(body).encode(),
                           headers={"Content-Type": "application/json", **(headers or {})})
        response = connection.getresponse()
        answer = response.read()
    except (OSError, http.client.HTTPException) as error:
        return None, failure(error)
    finally:
        connection.close()
    try:
        code = (json.loads(answer).get("error") or {}).get("code")
    except (ValueError, AttributeError):
        code = None
    return response.status, code


def said(status, code):
    return f"{status} {code}" if code else str(status)


def expect_refused(harm, seen, label, answer):
    seen[label] = said(*answer)
    if answer[0] != 400:
        harm.append(f"{label}: answered {seen[label]}, not refused 400")


def probe_relay_other_miner(harm, seen):
    other = PARAMS["otherMiner"]
    expect_refused(harm, seen, "a body naming another miner", relay_post(tagged_body("body", minerHotkey=other)))
    # A header is no way to name a miner either: the call goes for the run's own (checked outside).
    answer = relay_post(tagged_body("header"), {"X-Miner-Hotkey": other})
    seen["x-miner-hotkey naming another miner"] = said(*answer)


def probe_relay_other_lease(harm, seen):
    other = PARAMS["otherLease"]
    expect_refused(harm, seen, "a body naming another lease",
                   relay_post(tagged_body("body", agentPredictionId=other)))
    answer = relay_post(tagged_body("query"), path=f"/v1/gateway/completions?agentPredictionId={other}")
    seen["a query naming another lease"] = said(*answer)


def probe_relay_limit(harm, seen):
    from forecasting_gateway import LlmError, complete
    limit = PARAMS["relayMaxCalls"]
    outcomes, last = [], {}
    for index in range(limit + 1):
        body = tagged_body(str(index))
        try:
            complete(body["provider"], body["model"], body["messages"], body["maxTokens"])
            outcomes.append("200")
        except LlmError as error:
            outcomes.append(said(error.status, error.code))
            last = {"status": error.status, "code": error.code, "details": error.details}
    seen[f"calls 1 to {limit}"] = ", ".join(f"{o} × {outcomes[:limit].count(o)}" for o in sorted(set(outcomes[:limit])))
    seen[f"call {limit + 1}"] = outcomes[limit]
    if outcomes[limit] == "200" or last != {"status": 429, "code": "relay_limit", "details": {"maxCalls": limit}}:
        harm.append(f"call {limit + 1} of a run allowed {limit}: {outcomes[limit]}, not 429 relay_limit")


async def burst_call(index):
    body = json.dumps(tagged_body(str(index))).encode()
    request = (b"POST /v1/gateway/completions HTTP/1.1\r\nHost: relay\r\nConnection: close\r\n"
               b"Content-Type: application/json\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
    try:
        reader, writer = await asyncio.open_unix_connection(relay_path())
        writer.write(request)
        await writer.drain()
        answer = await asyncio.wait_for(reader.read(), 120)
        writer.close()
        return answer.split(b" ", 2)[1].decode() if answer.startswith(b"HTTP/1.1 ") else "cut"
    except (OSError, asyncio.TimeoutError) as error:
        return failure(error)


async def burst(count):
    return await asyncio.gather(*(burst_call(index) for index in range(count)))


def probe_relay_burst(harm, seen):
    outcomes = asyncio.run(burst(100))
    for outcome in sorted(set(outcomes)):
        seen[outcome] = outcomes.count(outcome)
    answered = outcomes.count("200")
    if answered > PARAMS["relayMaxCalls"]:
        harm.append(f"{answered} of 100 calls at once were answered, beyond the run's {PARAMS['relayMaxCalls']}")


def probe_relay_refused(harm, seen):
    from forecasting_gateway import LlmError, complete
    body = tagged_body("unknown-provider")
    try:
        complete("fgw-no-such-provider", "none", body["messages"], body["maxTokens"])
        harm.append("a call naming no provider of the catalog was answered 200")
    except LlmError as error:
        fields = [field.get("field") for field in (error.details or {}).get("fields", []) if isinstance(field, dict)]
        seen["refusal"] = f"{error.status} {error.code}: {error.message} {fields}"
        if (error.status, error.code, fields) != (400, "invalid_request", ["provider"]):
            harm.append(f"the service's refusal did not come through as it was: {seen['refusal']}")
