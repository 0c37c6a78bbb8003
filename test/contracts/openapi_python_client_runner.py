"""Calls operations through the client openapi-python-client generated from the OpenAPI document, for
test/contracts/openapi-python-client.test.ts: one JSON request per line on stdin, one JSON answer
per line on stdout.

A request: {"service_url", "headers", "tag", "operation", "body_class" (or null for no body),
"input"}. The answer: {"status", "parsed_class", "parsed" (the model's to_dict(), or null)}, or
{"error": "..."} when the client raised.
"""

from __future__ import annotations

import importlib
import json
import sys
import traceback
from typing import Any

from identity_service_client import Client, models


def call(request: dict[str, Any]) -> dict[str, Any]:
    module = importlib.import_module(f"identity_service_client.api.{request['tag']}.{request['operation']}")
    # raise_on_unexpected_status: an answer the document does not declare fails the call.
    client = Client(base_url=request["service_url"], headers=request["headers"], raise_on_unexpected_status=True)
    arguments: dict[str, Any] = {"client": client}
    if request["body_class"] is not None:
        arguments["body"] = getattr(models, request["body_class"]).from_dict(request["input"])
    with client:
        response = module.sync_detailed(**arguments)
    parsed = response.parsed
    return {
        "status": int(response.status_code),
        "parsed_class": type(parsed).__name__,
        "parsed": parsed.to_dict() if hasattr(parsed, "to_dict") else None,
    }


def main() -> None:
    for line in sys.stdin:
        try:
            answer = call(json.loads(line))
        except Exception:  # noqa: BLE001 - reported to the test, which fails the call
            answer = {"error": traceback.format_exc(limit=6)}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
