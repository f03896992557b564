"""--json gives exactly one JSON document on stdout (SPEC §3), whatever happens: a run that
succeeds, a usage error found while parsing the command line, a bad --timeout."""

import json

import pytest

USAGE_ERROR_KEYS = {"type", "message", "line", "column"}


def usage_error(result):
    assert result.code == 2, (result.stdout, result.stderr)
    doc = json.loads(result.stdout)
    assert set(doc) == {"error"} and set(doc["error"]) == USAGE_ERROR_KEYS
    assert doc["error"]["type"] == "UsageError"
    assert "Usage:" not in result.stdout + result.stderr
    return doc["error"]["message"]


# ---------------------------------------------------------------------- run

def test_run_json_of_a_program_that_succeeds(cli):
    r = cli("run", "-", "--json", input="x = tensor(2., requires_grad=True)\n")
    assert r.code == 0
    assert r.json() == {"dtype": "float32", "values": {"x": 2.0}, "gradients": {}, "output": ""}


def test_run_json_has_values_gradients_and_what_the_program_printed(cli):
    program = ("import torch\nx = torch.tensor([2., 3.], requires_grad=True)\n"
               "y = (x ** 2).sum()\ny.backward()\nprint(x.grad)\nn = 3\nf = lambda t: t\n")
    r = cli("run", "-", "--json", input=program)
    assert r.code == 0
    doc = r.json()
    assert doc["values"] == {"x": [2.0, 3.0], "y": 13.0, "n": 3}  # no modules, no functions
    assert doc["gradients"] == {"x": [4.0, 6.0]}
    assert doc["output"] == "tensor([4., 6.])\n"
    assert "tensor([4., 6.])" in r.stderr  # printed as it ran, off the JSON stream


def test_run_json_error_is_the_error_document(cli):
    r = cli("run", "-", "--json", input="x = tensor(2.)\nx.backward()\n")
    assert r.code == 2
    assert r.json()["error"]["type"] == "RuntimeError" and r.json()["error"]["line"] == 2


# ---------------------------------------------------------------------- usage errors

def test_bad_option_value_with_json_is_a_json_error(cli):
    message = usage_error(cli("eval", "z=x", "--at", "x=1", "--order", "0", "--json"))
    assert "--order" in message
    message = usage_error(cli("eval", "z=x", "--at", "x=1", "--timeout", "abc", "--json"))
    assert "--timeout" in message and "abc" in message


def test_json_before_the_bad_option_and_other_usage_errors(cli):
    usage_error(cli("eval", "--json", "z=x", "--order", "zero"))
    assert "--bogus" in usage_error(cli("eval", "z=x", "--bogus", "--json"))
    assert "PROGRAM" in usage_error(cli("eval", "--json"))
    assert "evl" in usage_error(cli("evl", "x", "--json"))
    usage_error(cli("check", "z=x", "--rtol", "tight", "--json"))


def test_usage_errors_without_json_are_still_clicks_text(cli):
    r = cli("eval", "z=x", "--at", "x=1", "--order", "0")
    assert r.code == 2 and r.stdout == ""
    assert "Usage:" in r.stderr and "--order" in r.stderr


def test_usage_error_json_from_the_console_script(gradcli_process):
    r = gradcli_process("eval", "z=x", "--at", "x=1", "--timeout", "abc", "--json")
    assert "--timeout" in usage_error(r)


# ---------------------------------------------------------------------- --timeout

@pytest.mark.parametrize("value", ["-1", "0", "-0.5", "nan", "inf"])
def test_non_positive_timeout_is_a_usage_error(cli, value):
    r = cli("eval", "z=x", "--at", "x=1", "--timeout", value)
    assert r.code == 2
    assert "TimeoutError" not in r.stderr
    assert "--timeout" in r.stderr and "positive" in r.stderr
    assert "positive" in usage_error(cli("run", "-", "--timeout", value, "--json",
                                         input="x = 1\n"))


def test_positive_timeout_still_works(cli):
    assert cli("eval", "z=x", "--at", "x=1", "--timeout", "5", "--json").json()["values"]["z"] == 1.0
