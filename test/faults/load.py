"""The Python SDK's share of the fault schedule's load (schedule.ts): sign-ups and updates over REST,
GraphQL and gRPC, spread over the replicas, until the deadline. One JSON line per call on stdout, its
outcome included, for the schedule's checker. Argument: the settings as JSON."""

from __future__ import annotations

import json
import sys
import time
from functools import partial
from typing import Any, Literal

from identity_sdk import AdminClient, ApiError, UserClient

Protocol = Literal["rest", "graphql", "grpc"]
PROTOCOLS: list[Protocol] = ["rest", "graphql", "grpc"]


def outcome(call: Any) -> tuple[dict[str, object], Any]:
    """The call's outcome as the checker reads it, and its answer (None when it failed)."""
    try:
        return {"code": "OK"}, call()
    except ApiError as error:
        # The client's own UNAVAILABLE when nothing answered has no Retry-After to carry.
        answered = "no answer from the service" not in error.message
        return {
            "code": error.code,
            "answered": answered,
            "retry_after": error.retry_after is not None,
            "protocol": error.protocol,
            "message": error.message,
        }, None


def main() -> None:
    settings = json.loads(sys.argv[1])
    deadline = time.monotonic() + float(settings["seconds"])
    acknowledged: list[str] = []
    step = 0
    while time.monotonic() < deadline:
        replica = settings["replicas"][step % len(settings["replicas"])]
        protocol = PROTOCOLS[step % len(PROTOCOLS)]
        common: dict[str, Any] = {"service_url": replica["http"], "grpc_endpoint": replica["grpc"], "protocol": protocol, "retry": False, "timeout": 5.0}
        if step % 3 != 2 or not acknowledged:
            email = f"{settings['prefix']}-{step}@faults.example.com"
            for attempt in range(20):
                with UserClient(client_id="reference", **common) as user:
                    result, _ = outcome(partial(user.signup, email=email, password=settings["password"], confirm_password=settings["password"]))
                print(json.dumps({"op": "signup", "email": email, "attempt": attempt, **result}), flush=True)
                if result["code"] in ("OK", "ALREADY_EXISTS"):
                    acknowledged.append(email)
                    break
                time.sleep(0.2)
        else:
            email = acknowledged[step % len(acknowledged)]
            nickname = f"{settings['prefix']}-n{step}"
            with AdminClient(admin_secret=settings["secret"], **common) as admin:
                found, page = outcome(partial(admin.users, query=email))
                print(json.dumps({"op": "read", **found}), flush=True)
                if page is not None and len(page.users) == 1:
                    user_id = page.users[0].id
                    result, _ = outcome(partial(admin.update_user, id=user_id, nickname=nickname))
                    print(json.dumps({"op": "update", "email": email, "nickname": nickname, **result}), flush=True)
        step += 1


if __name__ == "__main__":
    main()
