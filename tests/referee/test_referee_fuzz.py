"""API fuzzing: schemathesis generates requests from the OpenAPI spec (valid and invalid); none may get a 5xx."""

import tempfile
from pathlib import Path

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error

from referee.app import create_app

DATA = Path(tempfile.mkdtemp(prefix="cardref-fuzz-"))
APP = create_app(DATA / "data")
TOKENS = APP.state.tokens
# A match in play, so that the commands reach the engine rather than stop at "no match".
APP.state.session.create_match("bid_whist", {}, None, 0, "director", "fuzz")
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)
# The table's token: random generation only (the boundary-value phase already ran with the director's).
table_schema = schemathesis.openapi.from_asgi("/openapi.json", APP)
table_schema.config.phases.coverage.enabled = False


@schema.parametrize()
@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_no_server_error_as_director(case):
    response = case.call(headers={"Authorization": "Bearer " + TOKENS["director"]})
    case.validate_response(response, checks=[not_a_server_error])
    assert response.headers["content-type"][0].startswith(("application/json", "text/plain"))
    assert "Traceback" not in response.text


@table_schema.parametrize()
@settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_no_server_error_as_table(case):
    response = case.call(headers={"Authorization": "Bearer " + TOKENS["table"]})
    case.validate_response(response, checks=[not_a_server_error])
