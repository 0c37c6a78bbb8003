"""Runs scim2-tester against a SCIM service and prints its results as JSON lines.

Usage: run_scim_tester.py <base URL of /scim/v2> (the bearer token in the SCIM_TOKEN environment
variable). Every check runs, on the resource types the server announces; the caller judges the
statuses.
"""

import json
import os
import sys

from httpx2 import Client
from scim2_client.engines.httpx2 import SyncSCIMClient
from scim2_tester import check_server


def main() -> int:
    base_url = sys.argv[1]
    token = os.environ["SCIM_TOKEN"]
    with Client(base_url=base_url, headers={"Authorization": f"Bearer {token}"}, timeout=30) as http:
        client = SyncSCIMClient(http)
        for result in check_server(client):
            print(
                json.dumps(
                    {
                        "status": result.status.name,
                        "title": result.title,
                        "resource_type": result.resource_type,
                        "reason": result.reason,
                        "data": None if result.data is None else str(result.data)[:2000],
                    }
                ),
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
