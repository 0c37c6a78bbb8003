"""Per-call latency of admin_meta() through the generated Python clients, sync and async, over each
protocol, against the same request made by hand in the same run: raw httpx for GraphQL and REST, a
raw grpcio / grpc.aio unary call for gRPC. Rounds interleave baseline and client; medians are
printed with their ratio. Latency is wall time; the CPU time this process spends per call is
printed beside it, as it moves much less than latency when other work shares the machine. Driven
by bench/python.bench.ts, which starts the server."""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

import grpc
import grpc.aio
import httpx

from identity_sdk import OPERATIONS, AdminClient, AsyncAdminClient
from identity_sdk._grpc import message_class

service_url, grpc_endpoint, secret = sys.argv[1], sys.argv[2], sys.argv[3]
CALLS, ROUNDS, TARGET = int(sys.argv[4]), int(sys.argv[5]), 0.10
HEADERS = {"x-service-admin-secret": secret}
META = OPERATIONS["admin_meta"]
assert META.graphql is not None and META.grpc is not None
GRAPHQL_BODY = json.dumps({"query": META.graphql.document}).encode()
REQUEST = message_class(META.grpc.request_type)
RESPONSE = message_class(META.grpc.response_type)


Sample = tuple[float, float]
"""Microseconds per call: wall time, CPU time of this process."""


def sync_round(call: Callable[[], Any]) -> Sample:
    start, cpu = time.perf_counter(), time.process_time()
    for _ in range(CALLS):
        call()
    return (time.perf_counter() - start) * 1e6 / CALLS, (time.process_time() - cpu) * 1e6 / CALLS


async def async_round(call: Callable[[], Awaitable[Any]]) -> Sample:
    start, cpu = time.perf_counter(), time.process_time()
    for _ in range(CALLS):
        await call()
    return (time.perf_counter() - start) * 1e6 / CALLS, (time.process_time() - cpu) * 1e6 / CALLS


def report(protocol: str, mode: str, baseline: list[Sample], client: list[Sample]) -> None:
    raw, generated = statistics.median(s[0] for s in baseline), statistics.median(s[0] for s in client)
    raw_cpu, generated_cpu = statistics.median(s[1] for s in baseline), statistics.median(s[1] for s in client)
    overhead = generated / raw - 1
    print(
        f"{protocol:<8} {mode:<5}  raw {raw:6.0f} µs   client {generated:6.0f} µs   ratio {generated / raw:.3f} "
        f"(overhead {overhead * 100:5.1f}%, target <= {TARGET * 100:.0f}%: {'met' if overhead <= TARGET else 'MISSED'})   "
        f"cpu raw {raw_cpu:4.0f} µs client {generated_cpu:4.0f} µs (+{generated_cpu - raw_cpu:.0f} µs)",
        flush=True,
    )


def bench_sync(protocol: str) -> None:
    http = httpx.Client(timeout=None)
    channel = grpc.insecure_channel(grpc_endpoint)
    unary = channel.unary_unary(META.grpc.path, request_serializer=REQUEST.SerializeToString, response_deserializer=RESPONSE.FromString)
    metadata = tuple(HEADERS.items())
    raw: dict[str, Callable[[], Any]] = {
        "rest": lambda: http.post(f"{service_url}{META.rest.path}", content=b"{}", headers={**HEADERS, "content-type": "application/json"}).json(),
        "graphql": lambda: http.post(f"{service_url}/graphql", content=GRAPHQL_BODY, headers={**HEADERS, "content-type": "application/json"}).json(),
        "grpc": lambda: unary(REQUEST(), metadata=metadata),
    }
    with AdminClient(service_url=service_url, admin_secret=secret, protocol=protocol, grpc_endpoint=grpc_endpoint) as admin:
        baseline: list[Sample] = []
        client: list[Sample] = []
        sync_round(raw[protocol]), sync_round(admin.admin_meta)  # warm-up: connections, caches
        for i in range(ROUNDS):
            # Which goes first alternates, so that neither always runs right after the other.
            if i % 2:
                client.append(sync_round(admin.admin_meta))
            baseline.append(sync_round(raw[protocol]))
            if not i % 2:
                client.append(sync_round(admin.admin_meta))
    http.close()
    channel.close()
    report(protocol, "sync", baseline, client)


async def bench_async(protocol: str) -> None:
    http = httpx.AsyncClient(timeout=None)
    channel = grpc.aio.insecure_channel(grpc_endpoint)
    unary = channel.unary_unary(META.grpc.path, request_serializer=REQUEST.SerializeToString, response_deserializer=RESPONSE.FromString)
    metadata = tuple(HEADERS.items())

    async def rest() -> Any:
        return (await http.post(f"{service_url}{META.rest.path}", content=b"{}", headers={**HEADERS, "content-type": "application/json"})).json()

    async def graphql() -> Any:
        return (await http.post(f"{service_url}/graphql", content=GRAPHQL_BODY, headers={**HEADERS, "content-type": "application/json"})).json()

    async def grpc_call() -> Any:
        return await unary(REQUEST(), metadata=metadata)

    raw = {"rest": rest, "graphql": graphql, "grpc": grpc_call}[protocol]
    async with AsyncAdminClient(service_url=service_url, admin_secret=secret, protocol=protocol, grpc_endpoint=grpc_endpoint) as admin:
        baseline: list[Sample] = []
        client: list[Sample] = []
        await async_round(raw), await async_round(admin.admin_meta)
        for i in range(ROUNDS):
            if i % 2:
                client.append(await async_round(admin.admin_meta))
            baseline.append(await async_round(raw))
            if not i % 2:
                client.append(await async_round(admin.admin_meta))
    await http.aclose()
    await channel.close()
    report(protocol, "async", baseline, client)


print(f"admin_meta(), {CALLS} sequential calls per round, median of {ROUNDS} rounds, Python {sys.version.split()[0]}", flush=True)
for protocol in ("rest", "graphql", "grpc"):
    bench_sync(protocol)
    asyncio.run(bench_async(protocol))
