# Schemathesis hooks for the contract check (schemathesis.test.ts sets SCHEMATHESIS_HOOKS to this
# file). Each hook supplies a value that only the server can issue, or that must differ from case to
# case by design; none of them turns a check off, and each is explained in docs/http-api.md
# ("The independent check"). A hook edits only cases Schemathesis generated as valid (positive): a
# negative case goes out as generated, so the server's refusals are still tested.
import hashlib
import json
import os
from urllib.parse import parse_qs, urlsplit

import requests
import schemathesis

ACTOR_URL = os.environ.get("ACTORKIT_ACTOR_URL", "")
API_KEY = os.environ.get("ACTORKIT_API_KEY", "")
# The OAuth provider the actor has configured; empty when it has none (hello-actor).
OAUTH_PROVIDER = os.environ.get("ACTORKIT_OAUTH_PROVIDER", "")


def _is_positive(case) -> bool:
    return case.meta is not None and case.meta.generation.mode.is_positive


# Idempotency-Key (DESIGN.md §3; /agent/invoke and /agent/ag-ui): the same key with another body is refused, 422
# idempotency_key_reused, as it must be. Schemathesis draws keys from a small space ("0", "00"…)
# and sends one key with many bodies, so a valid case would meet a key an earlier case used. Only
# such a collision is changed: the key keeps its length and stays 1-255 visible ASCII characters,
# and a key sent again with the same body is left alone (its replay is tested).
_bodies_by_key: dict[tuple[str, str], str] = {}
_fresh_keys = 0


def _fresh_key(length: int) -> str:
    global _fresh_keys
    _fresh_keys += 1
    digest = hashlib.sha256(f"schemathesis-{_fresh_keys}".encode()).hexdigest() * 4
    return digest[:length]


def _unique_idempotency_key(case) -> None:
    headers = case.headers or {}
    key = headers.get("Idempotency-Key")
    if not isinstance(key, str):
        return
    # HTTP strips the spaces and tabs around a header value: the actor sees the key without them.
    key = key.strip(" \t")
    if not (1 <= len(key) <= 255) or not all("\x21" <= c <= "\x7e" for c in key):
        return
    tenant = str(headers.get("X-Tenant-Id", ""))
    body = json.dumps(case.body, sort_keys=True, default=str)
    seen = _bodies_by_key.get((tenant, key))
    if seen is not None and seen != body:
        key = _fresh_key(len(key))
        case.headers["Idempotency-Key"] = key
    _bodies_by_key[(tenant, key)] = body


# /oauth/callback takes only a `state` the actor issued at /oauth/authorize (single use, expiring)
# and the `code` its provider issued for it (the mock provider checks the PKCE verifier against it):
# no schema can generate them. For a valid case, the hook goes through a flow the way a user's
# browser would, and puts the callback's state and code in the case.
_flows = 0


def _issued_callback() -> dict[str, str] | None:
    global _flows
    _flows += 1
    headers = {"X-API-Key": API_KEY} if API_KEY else {}
    # A tenant of its own for each flow: the tester's own /oauth/authorize cases leave flows
    # pending in the default tenant, up to its cap (429 too_many_pending_oauth_flows).
    start = requests.get(
        f"{ACTOR_URL}/oauth/authorize",
        params={"provider": OAUTH_PROVIDER, "tenant_id": f"schemathesis-{_flows}"},
        headers=headers,
        allow_redirects=False,
        timeout=10,
    )
    if start.status_code != 302:
        raise RuntimeError(f"/oauth/authorize answered {start.status_code}: {start.text[:300]}")
    at_provider = requests.get(start.headers["Location"], allow_redirects=False, timeout=10)
    query = parse_qs(urlsplit(at_provider.headers.get("Location", "")).query)
    if "state" not in query or "code" not in query:
        raise RuntimeError(f"the provider answered {at_provider.status_code}: {at_provider.headers} {at_provider.text[:300]}")
    return {"state": query["state"][0], "code": query["code"][0]}


def _storable_message(text: str) -> bool:
    """The chat request's `message` rule: 1-32768 characters, no NUL, no unpaired surrogate."""
    return text != "" and len(text) <= 32768 and not any(c == "\x00" or "\ud800" <= c <= "\udfff" for c in text)


def _text_of(content) -> str | None:
    """The text of a message's content (a string, or text parts joined by a line break), or None for other parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(
        isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str) for part in content
    ):
        return "\n".join(part["text"] for part in content)
    return None


# A chat body with `messages` (the AI SDK's on /agent/invoke, AG-UI's RunAgentInput on
# /agent/ag-ui) is answered for its last message only, which must be the user's with some text
# (or, instead, approval answers: the AI SDK's assistant message, AG-UI's `resume`): a rule on the
# last item of an array, which JSON Schema cannot state. A valid case whose last message is not a
# user's text gets one appended; the earlier messages, which the actor ignores, stay as generated.
def _answerable_last_message(case, ag_ui: bool) -> None:
    body = case.body
    if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
        return
    if ag_ui and body.get("resume"):
        return
    messages = body["messages"]
    last = messages[-1] if messages else None
    if isinstance(last, dict) and last.get("role") == "user":
        text = _text_of(last.get("content") if ag_ui else last.get("parts"))
        if text is not None and _storable_message(text):
            return
    messages.append(
        {"id": "schemathesis-user", "role": "user", "content": "Hello"}
        if ag_ui
        else {"role": "user", "parts": [{"type": "text", "text": "Hello"}]}
    )


# `metadata` (DESIGN.md: what a store can keep) holds no NUL character in any key or string, at any
# depth. The document says so in words and in the top-level description; a JSON Schema would need a
# recursive definition for the nested keys, which the document does not have yet. A valid case
# gets its NUL characters dropped from `metadata`; a negative case keeps them and must get 422.
def _without_nul(value):
    if isinstance(value, str):
        return value.replace("\x00", "")
    if isinstance(value, list):
        return [_without_nul(item) for item in value]
    if isinstance(value, dict):
        return {_without_nul(key): _without_nul(item) for key, item in value.items()}
    return value


def _storable_metadata(case) -> None:
    if isinstance(case.body, dict) and isinstance(case.body.get("metadata"), dict):
        case.body["metadata"] = _without_nul(case.body["metadata"])


# An A2A message without a taskId is a new turn (docs/surfaces.md): its text parts, joined by line
# breaks, are the chat request's `message` (at most 32768 characters, no unpaired surrogate), and
# its file parts its attachments (at most 10). Both are rules on several parts together, which JSON
# Schema cannot state (`maxContains` would say the second, but Schemathesis cannot negate it); the
# document says them in words. A valid case past them keeps its first 10 file parts and gets its
# text parts replaced by one that holds.
def _answerable_a2a_message(case) -> None:
    message = case.body.get("message") if isinstance(case.body, dict) else None
    if not isinstance(message, dict) or message.get("taskId") or not isinstance(message.get("parts"), list):
        return
    parts = [part for part in message["parts"] if isinstance(part, dict)]
    texts = [part["text"] for part in parts if isinstance(part.get("text"), str)]
    files = [part for part in parts if "url" in part or "raw" in part]
    if _storable_message("\n".join(texts)) and len(files) <= 10:
        return
    others = [part for part in parts if not isinstance(part.get("text"), str) and part not in files]
    message["parts"] = [{"text": "Hello"}, *files[:10], *others]


@schemathesis.hook
def before_call(context, case, kwargs):
    if not _is_positive(case):
        return
    path = case.operation.path
    if path == "/agent/invoke":
        _answerable_last_message(case, ag_ui=False)
        _storable_metadata(case)
        _unique_idempotency_key(case)
    elif path in ("/a2a/message:send", "/a2a/message:stream"):
        _answerable_a2a_message(case)
    elif path == "/agent/ag-ui":
        _answerable_last_message(case, ag_ui=True)
        _unique_idempotency_key(case)
    elif path == "/oauth/callback" and OAUTH_PROVIDER and ACTOR_URL:
        issued = _issued_callback()
        if issued is not None:
            case.query.update(issued)


# An actor without an OAuth provider (hello-actor) issues no state at all, so no callback it can get
# is valid: the valid cases are left out, and the invalid ones (no state, no code, an unknown state)
# still go out and must be refused with 400.
@schemathesis.hook
def filter_case(context, case):
    return OAUTH_PROVIDER != "" or case.operation.path != "/oauth/callback" or not _is_positive(case)


# /mcp (MCP Streamable HTTP): every message but `initialize` needs the Mcp-Session-Id an
# `initialize` answered (400 without it), and DELETE /mcp names such a session. Only the server
# issues one, so no schema can generate it: the document says so in words. A valid case whose body
# is not an `initialize` (and every valid DELETE) gets a session of its own, opened as an MCP
# client opens one (`initialize`, then `notifications/initialized`) with the key headers the run
# sends; an `initialize` is left as generated, since it needs none. A negative case goes out as
# generated, so the 400 of a missing id and the 404 of a malformed one are still tested, and no
# check is turned off.
MESH_KEY = os.environ.get("ACTORKIT_MESH_KEY", "")
_MCP_INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "schemathesis", "version": "4.25"}},
}


def _opened_mcp_session() -> str:
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    if API_KEY:
        headers["X-API-Key"] = API_KEY
    if MESH_KEY:
        headers["X-Mesh-Key"] = MESH_KEY
    opened = requests.post(f"{ACTOR_URL}/mcp", json=_MCP_INITIALIZE, headers=headers, timeout=10)
    session = opened.headers.get("Mcp-Session-Id")
    if opened.status_code != 200 or not session:
        raise RuntimeError(f"initialize answered {opened.status_code}: {opened.text[:300]}")
    headers["Mcp-Session-Id"] = session
    initialized = requests.post(
        f"{ACTOR_URL}/mcp", json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers, timeout=10
    )
    if initialized.status_code != 202:
        raise RuntimeError(f"notifications/initialized answered {initialized.status_code}: {initialized.text[:300]}")
    return session


def _is_mcp_initialize(body) -> bool:
    return isinstance(body, dict) and body.get("method") == "initialize"


@schemathesis.hook("before_call")
def mcp_session(context, case, kwargs):
    if not _is_positive(case) or case.operation.path != "/mcp" or not ACTOR_URL:
        return
    if case.method.upper() == "POST" and _is_mcp_initialize(case.body):
        return
    case.headers = case.headers or {}
    case.headers["Mcp-Session-Id"] = _opened_mcp_session()
