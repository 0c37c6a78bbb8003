"""The Python column runner of the conformance matrix (test/conformance/python-runner.ts): one JSON
request per line on stdin, one JSON answer per line on stdout (protocol: test/conformance/runners.ts).
Each call goes through the generated clients exactly as an application makes it: the method named
after the operation, its input as keyword arguments."""

from __future__ import annotations

import asyncio
import json
import sys
import traceback
from typing import Any

from identity_sdk import OPERATIONS, AdminClient, ApiError, AsyncAdminClient, AsyncUserClient, RetryPolicy, UserClient

Client = AdminClient | UserClient | AsyncAdminClient | AsyncUserClient
CLASSES: dict[tuple[str, str], type[Client]] = {
    ("sync", "admin"): AdminClient,
    ("sync", "user"): UserClient,
    ("async", "admin"): AsyncAdminClient,
    ("async", "user"): AsyncUserClient,
}

loop = asyncio.new_event_loop()
clients: dict[tuple[str, str, str, str], Client] = {}


def admin_credential(config: dict[str, Any], token: str | None) -> dict[str, Any]:
    """The admin secret, or an org-admin's access token instead."""
    return {"access_token": token} if token else {"admin_secret": config["admin_secret"]}


def user_credential(config: dict[str, Any]) -> dict[str, Any]:
    return {"client_id": config["client_id"]}


def client_for(mode: str, role: str, protocol: str, config: dict[str, Any]) -> Client:
    """One client per mode, role, protocol and service, as the TypeScript column keeps one per protocol."""
    tls = config.get("tls")
    limits = {"timeout_ms": config.get("timeout_ms"), "max_response_bytes": config.get("max_response_bytes"), "retry_attempts": config.get("retry_attempts")}
    # An org-admin's client carries their access token instead of the admin secret: one client per token.
    token = config.get("admin_access_token")
    key = (mode, role, protocol, config["service_url"] + json.dumps(tls) + json.dumps(limits) + (token or ""))
    client = clients.get(key)
    if client is None:
        common: dict[str, Any] = {
            "service_url": config["service_url"],
            "grpc_endpoint": config["grpc_endpoint"],
            "server_version": config["server_version"],
            "protocol": protocol,
            # Retries only where the column asks for them (the lost-answer column), with a short backoff.
            "retry": RetryPolicy(attempts=limits["retry_attempts"], base_delay=0.01) if limits["retry_attempts"] else False,
        }
        if limits["timeout_ms"] is not None:
            common["timeout"] = limits["timeout_ms"] / 1000
        if limits["max_response_bytes"] is not None:
            common["max_response_bytes"] = limits["max_response_bytes"]
        if tls:
            # The CA file reaches every protocol (httpx's verify and gRPC's roots); so does the client certificate.
            common["verify"] = tls["ca_file"]
            if tls.get("cert_file"):
                common["cert"] = (tls["cert_file"], tls["key_file"])
        credential = user_credential(config) if role == "user" else admin_credential(config, token)
        client = clients[key] = CLASSES[(mode, role)](**common, **credential)
    return client


def handle(request: dict[str, Any]) -> dict[str, Any]:
    operation = OPERATIONS[request["operation"]]
    role = "admin" if request["surface"] == "admin" else "user"
    client = client_for(request["mode"], role, request["protocol"], request["config"])
    kwargs: dict[str, Any] = {operation.arguments.get(key, key): value for key, value in request["input"].items()}
    if role == "admin":
        kwargs["extra_headers"] = request["headers"]
    else:
        client.set_access_token(request["access_token"])  # type: ignore[union-attr]
    method = getattr(client, operation.method)
    try:
        answer = method(**kwargs) if request["mode"] == "sync" else loop.run_until_complete(method(**kwargs))
        return {"id": request["id"], "ok": True, "answer": answer.to_dict()}
    except ApiError as error:
        return {
            "id": request["id"],
            "ok": False,
            "code": error.code,
            "message": error.message,
            "refused": error.refused,
            "operation": error.operation,
            "protocol": error.protocol,
            "status": error.status,
            "retry_after_seconds": error.retry_after,
        }
    finally:
        if role == "user":
            client.set_access_token(None)  # type: ignore[union-attr]


def main() -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        try:
            reply = handle(request)
        except Exception:
            reply = {"id": request.get("id"), "crash": traceback.format_exc()}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
    for client in clients.values():
        closed = client.close()
        if closed is not None:
            loop.run_until_complete(closed)
    loop.close()


if __name__ == "__main__":
    main()
