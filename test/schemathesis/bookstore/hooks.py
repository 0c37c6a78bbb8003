"""schemathesis hooks for the bookstore run: the staff's API key on the operations that take it,
and a new well-formed Idempotency-Key per request, as a client sends one (the same key with
another body is refused, as the contract says)."""

import os
import re
import uuid
from collections.abc import MutableMapping
from typing import Any

import schemathesis

API_KEY = os.environ["BOOKSTORE_API_KEY"]
API_KEY_HEADER = "x-bookstore-key"


# Through an auth provider rather than a header of the command line, so that schemathesis knows
# the credential and leaves it out where a check asks for a request without it.
@schemathesis.auth()
class StaffKey:
    def get(self, case: schemathesis.Case, context: Any) -> str:
        return API_KEY

    def set(self, case: schemathesis.Case, data: str, context: Any) -> None:
        if case.operation.definition.raw.get("security"):
            case.headers = {**(case.headers or {}), API_KEY_HEADER: data}


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
