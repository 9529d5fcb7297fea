"""The fuzz campaign of tools/fuzz.py: a seeded slice of it runs with the unit tests, and its
classifier is checked on planted faults (a NaN result, a KeyError, a hang, a leaked numpy error).

The whole campaign (20,000 cases) runs with ``python tools/fuzz.py``.
"""

import importlib.util
import pathlib
from collections import namedtuple

import numpy as np
import pytest

import dynlib as dl
import dynlib.spatial.rotations

ROOT = pathlib.Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("fuzz", ROOT / "tools" / "fuzz.py")
fuzz = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fuzz)

SLICE_CASES, SLICE_SEED = 2000, 20261121


def test_a_slice_of_the_campaign_finds_nothing_unexpected():
    counts, unexpected = fuzz.run(SLICE_CASES, SLICE_SEED)
    listing = "\n".join(f"case {i}: {name} [{summary}]: {detail}" for i, name, summary, detail in unexpected)
    assert not unexpected, f"replay with: python tools/fuzz.py --seed {SLICE_SEED} --case N -v\n{listing}"
    total = sum((c for c in counts.values()), start=fuzz.Counter())
    assert sum(total.values()) == SLICE_CASES
    # the slice reaches both sides: valid inputs computed, bad ones rejected, for most functions
    assert total["ok"] > SLICE_CASES // 10 and total["error"] > SLICE_CASES // 2
    assert len(counts) > 90
    # every family of targets, the geometry modules and the marker functions included
    assert {fuzz.FAMILY_OF[name] for name in counts} == set(fuzz.OTHER_TARGETS) | {"model-based"}
    for name in ("skew", "exp_so3", "log_se3", "transform_inertia", "subspace_decomposition", "percussion_axis",
                 "reciprocal_product", "random_rotation", "marker_motion", "centres_of_mass"):
        assert counts[name]["ok"] + counts[name]["error"] > 0, name


def test_the_same_seed_gives_the_same_cases_and_counts():
    first, second = fuzz.run(300, seed=7), fuzz.run(300, seed=7)
    assert first == second
    assert fuzz.run(300, seed=8)[0] != first[0]
    case = fuzz.make_case(7, 123)
    again = fuzz.make_case(7, 123)
    assert (case.name, case.summary) == (again.name, again.summary)


def test_the_command_line_prints_the_counts_and_exits_zero(capsys):
    assert fuzz.main(["--cases", "40", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "UNEXPECTED" in out.splitlines()[0]
    total = [line for line in out.splitlines() if line.startswith("total")]
    assert total and total[0].split()[1] == "40"


# -- the classifier on planted faults ----------------------------------------------------------


def returns_nan():
    return np.array([1.0, np.nan])


def raises_key_error():
    return {}["q"]


def raises_empty_value_error():
    raise ValueError("")


def leaks_numpy_value_error():
    return np.reshape(np.zeros(3), (2, 2))  # raised inside numpy's own Python code


def raises_linalg_error():
    return np.linalg.cholesky(-np.eye(2))


def hangs():
    while True:
        pass


Pair = namedtuple("Pair", "good bad")


@pytest.mark.parametrize(
    "func, found",
    [
        (returns_nan, "non-finite value at result without an error"),
        (lambda: Pair(np.ones(2), [0.0, np.inf]), r"non-finite value at result.bad[1]"),
        (lambda: dl.Kinematics(np.eye(3)[None], np.array([[np.nan, 0.0, 0.0]]), (), np.zeros((1, 6, 6))), "result.p"),
        (raises_key_error, "KeyError at tests/test_fuzz.py"),
        (raises_empty_value_error, "empty message"),
        (leaks_numpy_value_error, "ValueError leaked from"),
        (raises_linalg_error, "LinAlgError"),
        (lambda: dl.unit_axis(None + 1), "TypeError leaked from tests/test_fuzz.py"),
    ],
    ids=["nan", "inf-in-namedtuple", "nan-in-kinematics", "key-error", "empty-message", "leaked-numpy",
         "linalg-error", "python-type-error"],
)
def test_the_classifier_catches_planted_faults(func, found):
    outcome, detail = fuzz.classify(func)
    assert outcome == "unexpected"
    assert found in detail


def test_the_classifier_catches_a_hang():
    outcome, detail = fuzz.classify(hangs, time_limit=0.2)
    assert (outcome, detail) == ("unexpected", "hang: still running after 0.2 s")


def test_the_classifier_flags_python_messages_passed_on_by_dynlib(monkeypatch):
    # a dynlib function that lets Python's own TypeError through names no argument
    monkeypatch.setattr(dynlib.spatial.rotations, "_as_quaternion", lambda q, name: None)
    outcome, detail = fuzz.classify(dl.quaternion_conjugate, ([0.0, 0.0, 0.0, 1.0],))
    assert outcome == "unexpected" and "Python's message" in detail


def test_the_classifier_accepts_results_and_documented_errors():
    assert fuzz.classify(dl.unit_axis, ([0.0, 0.0, 2.0],)) == ("ok", "")
    outcome, detail = fuzz.classify(dl.unit_axis, ([0.0, 0.0, 0.0],))
    assert outcome == "error" and "axis must be a finite non-zero 3-vector" in detail
    # an infinite pitch is documented where the function says so, NaN never is
    translation = np.array([1.0, 0, 0, 0, 0, 0])
    assert fuzz.classify(dl.screw_of_twist, (translation,), allow_inf=True) == ("ok", "")
    assert fuzz.classify(dl.screw_of_twist, (translation,))[0] == "unexpected"
    assert fuzz.classify(returns_nan, allow_inf=True)[0] == "unexpected"
