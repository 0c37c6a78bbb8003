"""Hooks of the schemathesis runs (test/schemathesis/schemathesis.test.ts), loaded through
schemathesis.toml.

- A signed-in user for the operations that need one: a fresh user is signed up, and signed up
  again whenever its token stops working (the run itself calls logout, revoke_access, delete_user).
- A check of GraphQL answers by the contract's own error model, in place of schemathesis's
  `not_a_server_error`, which knows only the error labels of Apollo and graphql-java and so reads
  every refusal of this service (`extensions.code` INVALID_ARGUMENT, NOT_FOUND, ...) as a server
  error. Here a refusal must name a code the contract declares for the operation, and a server
  fault (a code answered with HTTP 5xx, a 5xx status, an error without a code) fails the run.

The test passes the service and the contract's facts in environment variables:
IDENTITY_SERVICE_URL, IDENTITY_ADMIN_SECRET, IDENTITY_CONTRACT (a JSON file: the admin secret's
header, per operation the error codes it may answer, and the codes that are server faults).
"""

from __future__ import annotations

import json
import os
import re
import uuid
from collections.abc import MutableMapping
from typing import Any

import httpx
import schemathesis

SERVICE_URL = os.environ["IDENTITY_SERVICE_URL"]
ADMIN_SECRET = os.environ["IDENTITY_ADMIN_SECRET"]
with open(os.environ["IDENTITY_CONTRACT"], encoding="utf-8") as contract_file:
    CONTRACT: dict[str, Any] = json.load(contract_file)
ADMIN_SECRET_HEADER: str = CONTRACT["adminSecretHeader"]
ERROR_CODES: dict[str, list[str]] = CONTRACT["errorCodes"]
SERVER_FAULTS: set[str] = set(CONTRACT["serverFaults"])
PASSWORD = "schemathesis-password-1"


def _is_graphql(case: schemathesis.Case) -> bool:
    return case.operation.label.startswith(("Query.", "Mutation."))


def _security_schemes(case: schemathesis.Case) -> set[str]:
    """The security schemes an operation accepts; GraphQL (one endpoint for all) takes both credentials."""
    if _is_graphql(case):
        return {"adminSecret", "userToken"}
    return {name for requirement in case.operation.definition.raw.get("security") or [] for name in requirement}


# Credentials come from this hook rather than [auth.openapi] in schemathesis.toml: schemathesis drops
# the hooks' providers whenever the configuration names any, and the user needs one.
@schemathesis.auth(refresh_interval=3600, retry_on=[401])
class Credentials:
    """The admin secret, and the access token of a user signed up for the run: a new user whenever
    the token is refused (the run itself calls logout, revoke_access and delete_user)."""

    def get(self, case: schemathesis.Case, context: Any) -> str:
        email = f"fuzz-{uuid.uuid4().hex[:16]}@example.com"
        answer = httpx.post(f"{SERVICE_URL}/v1/signup", json={"email": email, "password": PASSWORD, "confirm_password": PASSWORD}, timeout=10)
        answer.raise_for_status()
        return str(answer.json()["access_token"])

    def set(self, case: schemathesis.Case, data: str, context: Any) -> None:
        schemes = _security_schemes(case)
        headers = dict(case.headers or {})
        # An operation open to the admin or to an org-admin user gets the admin secret only.
        if "adminSecret" in schemes:
            headers[ADMIN_SECRET_HEADER] = ADMIN_SECRET
        if "userToken" in schemes and ("adminSecret" not in schemes or _is_graphql(case)):
            headers["Authorization"] = f"Bearer {data}"
        case.headers = headers


# A well-formed key the fuzzer repeats would name another request's first answer, which the
# contract refuses (INVALID_ARGUMENT): a client makes a new key per request, so the run does too.
# A malformed key is left as generated, for the service to refuse.
_KEY = re.compile(r"[\x21-\x7e]{1,255}")


@schemathesis.hook
def before_call(context: Any, case: schemathesis.Case, kwargs: dict[str, Any]) -> None:
    for headers in (case.headers, kwargs.get("headers")):
        # case.headers is requests' CaseInsensitiveDict, not a dict.
        if not isinstance(headers, MutableMapping):
            continue
        for name in list(headers):
            if name.lower() == "idempotency-key" and _KEY.fullmatch(str(headers[name])):
                headers[name] = str(uuid.uuid4())


@schemathesis.check
def graphql_errors_follow_the_contract(ctx: Any, response: Any, case: schemathesis.Case) -> None:
    """Every GraphQL error is a refusal the contract declares for the operation, never a server fault."""
    if not _is_graphql(case):
        return None
    operation = case.operation.label.split(".", 1)[1]
    if response.status_code >= 500:
        raise AssertionError(f"{operation}: HTTP {response.status_code}")
    try:
        payload = response.json()
    except ValueError as error:
        raise AssertionError(f"{operation}: the answer is not JSON ({error})") from None
    declared = set(ERROR_CODES.get(operation, []))
    for error in payload.get("errors") or []:
        code = (error.get("extensions") or {}).get("code")
        message = error.get("message", "")
        if code is None:
            raise AssertionError(f"{operation}: an error without extensions.code: {message}")
        if code in SERVER_FAULTS:
            raise AssertionError(f"{operation}: server fault {code}: {message}")
        if code not in declared:
            raise AssertionError(f"{operation}: {code} is not among the codes the contract declares for it ({', '.join(sorted(declared))}): {message}")
    return None
