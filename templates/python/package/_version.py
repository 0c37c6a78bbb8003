"""Semantic-version precedence (semver 2.0 section 11), as the TypeScript client compares versions."""

from __future__ import annotations

import re

_VERSION = re.compile(r"^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+.*)?$")


def _parse(version: str) -> tuple[tuple[int, int, int], list[int | str]]:
    match = _VERSION.match(version.strip())
    if match is None:
        raise ValueError(f"'{version}' is not a version")
    major, minor, patch, pre = match.groups()
    identifiers: list[int | str] = [] if pre is None else [int(p) if p.isdigit() else p for p in pre.split(".")]
    return (int(major), int(minor), int(patch)), identifiers


def compare_versions(a: str, b: str) -> int:
    """Negative when a < b, zero when equal, positive when a > b. Build metadata is ignored."""
    core_a, pre_a = _parse(a)
    core_b, pre_b = _parse(b)
    for x, y in zip(core_a, core_b, strict=True):
        if x != y:
            return x - y
    if not pre_a or not pre_b:
        return len(pre_b) - len(pre_a)
    for i in range(max(len(pre_a), len(pre_b))):
        if i >= len(pre_a):
            return -1
        if i >= len(pre_b):
            return 1
        p, q = pre_a[i], pre_b[i]
        if p == q:
            continue
        if isinstance(p, int) and isinstance(q, int):
            return p - q
        if isinstance(p, int):
            return -1
        if isinstance(q, int):
            return 1
        return -1 if p < q else 1
    return 0
