import assert from "node:assert/strict";
import { loadConfig } from "../../../scripts/service/config.ts";

function refusal(value: string): string {
  try {
    loadConfig({ FGW_PUBLIC_URL: value });
  } catch (error) {
    assert.ok(error instanceof TypeError);
    return error.message;
  }
  throw new Error(`FGW_PUBLIC_URL=${value} was taken`);
}

Deno.test("FGW_PUBLIC_URL is read as an origin: https, or http on localhost", () => {
  assert.equal(loadConfig({}).FGW_PUBLIC_URL, undefined);
  const taken: [string, string][] = [
    ["https://gateway.example.org", "https://gateway.example.org"],
    ["https://Gateway.Example.org/", "https://gateway.example.org"],
    ["https://gateway.example.org:8443", "https://gateway.example.org:8443"],
    ["http://localhost:8080", "http://localhost:8080"],
    ["http://localhost", "http://localhost"],
    ["http://dash.localhost:3000/", "http://dash.localhost:3000"],
  ];
  for (const [value, origin] of taken) {
    assert.equal(loadConfig({ FGW_PUBLIC_URL: value }).FGW_PUBLIC_URL, origin);
  }
});

Deno.test("FGW_PUBLIC_URL refuses an IP address, a path, plain http elsewhere and what is no URL, saying why", () => {
  for (const ip of ["http://127.0.0.1:8080", "https://10.0.0.1", "http://[::1]:8080", "https://0x7f.1"]) {
    assert.match(refusal(ip), /FGW_PUBLIC_URL: must name a host, not an IP address: WebAuthn/, ip);
  }
  assert.match(refusal("https://gw.example.org/dashboard"), /FGW_PUBLIC_URL: must be an origin only/);
  assert.match(refusal("https://gw.example.org/?a=1"), /must be an origin only/);
  assert.match(refusal("https://gw.example.org/#top"), /must be an origin only/);
  assert.match(refusal("http://gw.example.org"), /must be https \(plain http only for localhost\)/);
  assert.match(refusal("ftp://gw.example.org"), /must be an http\(s\) URL/);
  assert.match(refusal("https://user:pw@gw.example.org"), /must not hold a user name or password/);
  assert.match(refusal("gw.example.org"), /must be a URL such as/);
});
