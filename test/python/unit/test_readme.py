"""The examples of the generated README run as printed, against recorded HTTP (every answer 200 with
its fields unset): each sync one over GraphQL or REST; those over gRPC or asyncio compile and import.
(python.test.ts type-checks them all with mypy --strict.)"""

from __future__ import annotations

import ast
import logging
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from conftest import Recorder
from identity_sdk import _http

README = Path(__file__).resolve().parents[3] / "generated" / "python" / "README.md"
EXAMPLES = [code for code in re.findall(r"```python\n(.*?)\n```", README.read_text(), re.S) if "from identity_sdk import" in code]
SECTIONS = re.findall(r"^## (.+)$", README.read_text(), re.M)


def test_the_readme_has_a_section_and_an_example_for_each_topic() -> None:
    for section in ("Errors", "Retries and idempotency keys", "Timeouts", "Pagination", "Logging and hooks", "Raw responses", "Forward compatibility",
                    "Configuration from the environment"):
        assert section in SECTIONS
    assert len(EXAMPLES) >= 8


@pytest.mark.parametrize("code", EXAMPLES, ids=[f"example_{index}" for index in range(len(EXAMPLES))])
def test_each_example_runs_or_imports(code: str, recorder: Recorder, monkeypatch: pytest.MonkeyPatch) -> None:
    tree = ast.parse(code)
    imports = ast.Module(body=[node for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))], type_ignores=[])
    exec(compile(imports, "<readme>", "exec"), {})
    if "grpc" in code or "async " in code:
        return
    # The client's own httpx client answers from the recorder; the environment example finds its variables.
    monkeypatch.setattr(_http, "_own_client", lambda verify, event_hooks: httpx.Client(transport=httpx.MockTransport(recorder), event_hooks=event_hooks))
    monkeypatch.setenv("IDENTITY_SERVICE_URL", "http://localhost:8080")
    monkeypatch.setenv("IDENTITY_ADMIN_SECRET", "s3cret")
    monkeypatch.setattr(logging, "basicConfig", lambda **options: None)
    logger = logging.getLogger("identity_sdk")
    monkeypatch.setattr(logger, "level", logger.level)
    namespace: dict[str, Any] = {"__name__": "readme_example"}
    exec(compile(tree, "<readme>", "exec"), namespace)
    assert recorder.requests or "print(admin)" in code
