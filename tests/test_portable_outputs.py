"""The guard against stored outputs that depend on round-off (tools/portable_outputs.py).

nbval compares stored text exactly, and round-off changes with the BLAS kernel a processor picks;
so no notebook may print the digits of a round-off-level number or assert a bound counted in ulps.
The fixtures are the six cells that passed on the machine that stored them and failed on others.
"""

import json
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import portable_outputs as po  # noqa: E402

FIXTURES = json.loads((ROOT / "tests" / "data" / "nonportable_cells.json").read_text())
NOTEBOOKS = sorted(ROOT.glob("chapters/*.ipynb")) + sorted(ROOT.glob("exercises/*.ipynb"))
NOTEBOOKS += sorted(ROOT.glob("book/*.ipynb"))


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda f: f"{pathlib.Path(f['notebook']).stem}-cell{f['code_cell']}")
def test_the_cells_that_broke_on_other_kernels_are_caught(fixture):
    findings, _ = po.cell_findings(fixture["cell"])
    assert findings, f"{fixture['why']}: not caught"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_stored_output_depends_on_round_off(path):
    findings = po.notebook_findings(json.loads(path.read_text()))
    assert not findings, "\n".join(f"code cell {i}: {rule}: {excerpt}" for i, rule, excerpt in findings)


def stream_cell(text, source="", tags=()):
    return {"cell_type": "code", "metadata": {"tags": list(tags)}, "source": source,
            "outputs": [{"output_type": "stream", "name": "stdout", "text": text}]}


@pytest.mark.parametrize("text", [
    "smallest singular value 4.8e-17 of the largest",
    "error, printed   7e-18   1e-15   3e-13",
    "||q| - 1| < 4e-16 at all samples",                 # a bound, but with round-off's digits
    "residual 0.000000000312",
    "error 2.5 \\cdot 10^{-12}",
    "error 1e-12",                                       # a power of ten that is a measurement, not a bound
])
def test_tiny_digits_are_caught(text):
    findings, _ = po.cell_findings(stream_cell(text))
    assert findings


@pytest.mark.parametrize("text", [
    "smallest singular value below 1e-10 of the largest",
    "identities hold to 1e-12: True",
    "    zero_u = uu <= 1e-24 * scale",
    "def mobility_spectrum(model, q, rtol=1e-9):",
    "distance to the limit: 4.4e-08",                    # above 1e-9: a well-conditioned difference
    "cond(H) 7e+08, energy 0.0e+00",
    "q = [ 1.0472 -0.6513  1.2988]",
])
def test_bounds_exact_values_and_well_conditioned_numbers_pass(text):
    findings, _ = po.cell_findings(stream_cell(text))
    assert not findings, findings


def test_cells_excluded_from_comparison_may_print_measurements():
    findings, _ = po.cell_findings(stream_cell("timings 3.2e-10 s", tags=["nbval-ignore-output"]))
    assert not findings


@pytest.mark.parametrize("source", [
    "assert np.all(error < 10 * ulp)",
    "assert err < 100 * np.finfo(float).eps",
    "assert cond_f.max() < 1e4 and np.all(error < 10 * np.spacing(x))",
    "eps = np.finfo(float).eps\nassert err < 50 * eps",
])
def test_tolerances_counted_in_ulps_are_caught(source):
    findings, _ = po.cell_findings(stream_cell("", source))
    assert findings


@pytest.mark.parametrize("source", [
    "eps = np.finfo(float).eps\nassert np.all(residual < 10 * cond_H * eps) and np.all(r2 < 10 * cond_H * eps)",
    "assert dl.relative_close(a, b, rtol=1e-9)",
    "x = np.finfo(float).eps  # no assertion",
    "assert abs(epsilon - 0.5) < 1e-12  # restitution, not machine epsilon",
])
def test_tolerances_from_conditioning_pass(source):
    findings, _ = po.cell_findings(stream_cell("", source))
    assert not findings, findings


def test_an_alias_of_machine_epsilon_defined_earlier_in_the_notebook_is_followed():
    notebook = {"cells": [stream_cell("", "eps = np.finfo(float).eps"), stream_cell("", "assert err < 8 * eps")]}
    assert [index for index, *_ in po.notebook_findings(notebook)] == [1]


def test_the_command_line_reports_and_fails(tmp_path, capsys):
    bad = tmp_path / "bad.ipynb"
    bad.write_text(json.dumps({"cells": [stream_cell("ratio 4.8e-17")]}))
    assert po.main([str(bad)]) == 1
    assert "code cell 0: digits of a number below 1e-9: '4.8e-17'" in capsys.readouterr().out
    good = tmp_path / "good.ipynb"
    good.write_text(json.dumps({"cells": [stream_cell("ratio below 1e-10")]}))
    assert po.main([str(good)]) == 0


@pytest.mark.parametrize("value, floor, digits, text", [
    (4.8e-17, 1e-10, 1, "below 1e-10"),
    (-2.5e-22, 1e-12, 3, "below 1e-12"),
    (3.4567e-4, 1e-10, 1, "0.0003"),
    (12.345, 0.0, 3, "12.3"),
    (0.0, 0.0, 1, "0"),
])
def test_error_messages_quote_numbers_without_round_off_digits(value, floor, digits, text):
    from dynlib.core.backend import quoted

    assert quoted(value, floor, digits) == text
