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


# Idempotency-Key (DESIGN.md §3): the same key with another body is refused, 422
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
    if not isinstance(key, str) or not (1 <= len(key) <= 255) or not all("\x21" <= c <= "\x7e" for c in key):
        return
    tenant = str(headers.get("X-Tenant-Id", ""))
    body = json.dumps(case.body, sort_keys=True, default=str)
    seen = _bodies_by_key.get((tenant, key))
    if seen is not None and seen != body:
        key = _fresh_key(len(key))
        case.headers["Idempotency-Key"] = key
    _bodies_by_key[(tenant, key)] = body


# /oauth/callback takes only a `state` the actor issued at /oauth/authorize (single use, expiring):
# no schema can generate one. For a valid case, the hook starts a flow the way a user's browser
# would and puts its state in the case; the generated `code` stays (the mock provider exchanges
# any code).
def _issued_state() -> str | None:
    headers = {"X-API-Key": API_KEY} if API_KEY else {}
    response = requests.get(
        f"{ACTOR_URL}/oauth/authorize",
        params={"provider": OAUTH_PROVIDER},
        headers=headers,
        allow_redirects=False,
        timeout=10,
    )
    states = parse_qs(urlsplit(response.headers.get("Location", "")).query).get("state")
    return states[0] if states else None


@schemathesis.hook
def before_call(context, case, kwargs):
    if not _is_positive(case):
        return
    path = case.operation.path
    if path == "/agent/invoke":
        _unique_idempotency_key(case)
    elif path == "/oauth/callback" and OAUTH_PROVIDER and ACTOR_URL:
        state = _issued_state()
        if state is not None:
            case.query["state"] = state


# An actor without an OAuth provider (hello-actor) issues no state at all, so no callback it can get
# is valid: the valid cases are left out, and the invalid ones (no state, no code, an unknown state)
# still go out and must be refused with 400.
@schemathesis.hook
def filter_case(context, case):
    return OAUTH_PROVIDER != "" or case.operation.path != "/oauth/callback" or not _is_positive(case)
