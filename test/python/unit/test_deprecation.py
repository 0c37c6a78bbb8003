"""A deprecated operation warns as Python does (DeprecationWarning, pointing at the caller's line),
and is still called."""

from __future__ import annotations

import warnings

import pytest

from conftest import Clients, Recorder, graphql_answer


def test_a_deprecated_operation_warns_at_the_callers_line_and_is_still_sent(clients: Clients, recorder: Recorder) -> None:
    recorder.answer(graphql_answer("update_env", {"message": "ok"}))
    with pytest.warns(DeprecationWarning, match=r"^update_env\(\) is deprecated: Configuration is by CLI flags in v2") as caught:
        answer = clients.run(clients.admin(protocol="graphql").update_env())
    assert answer.message == "ok"
    assert len(recorder.requests) == 1
    # stacklevel 2: the warning names the line that called the method, not the SDK's own.
    assert all("identity_sdk" not in warning.filename for warning in caught)


def test_an_operation_that_is_not_deprecated_warns_nothing(clients: Clients, recorder: Recorder) -> None:
    recorder.answer(graphql_answer("admin_meta", {"version": "2.4.0", "service": "identity"}))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clients.run(clients.admin(protocol="graphql").admin_meta())
