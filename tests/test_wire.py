"""tools/wire.py: what a student's kernel sends the grader is data, read without pickle or eval."""

import sys
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))

import wire  # noqa: E402

m, L = sp.symbols("m L", positive=True)
t = sp.Symbol("t")
theta = sp.Function("theta")(t)

VALUES = [None, ..., True, 3, -2**70, 2.5, float("inf"), 1 + 2j, "a word", np.float32(1.5), np.int64(4),
          np.float64(-0.8660254037844388), np.complex128(1 - 2j), np.bool_(True),
          np.arange(6.0).reshape(2, 3), np.array([True, False]), np.zeros((0, 3)), np.array([m, 2 * L], dtype=object),
          (1, [2.0, {"key": 3}]), sp.Matrix([[m * L**2 / 3, sp.sin(theta)], [sp.Rational(1, 3), sp.pi]]),
          sp.sqrt(2) * m, sp.diff(theta**2, t), sp.Float("1.25"), -sp.oo, sp.Eq(m, L), sp.atan2(m, L),
          sp.Piecewise((m, L > 1), (0, True)), sp.I * m]


@pytest.mark.parametrize("value", VALUES, ids=lambda v: type(v).__name__)
def test_values_cross_unchanged(value):
    back = wire.decode(wire.encode(value))
    assert type(back) is type(value)
    if isinstance(value, np.ndarray):
        assert back.dtype == value.dtype and back.shape == value.shape
        assert all(a == b for a, b in zip(back.flat, value.flat))
    elif isinstance(value, sp.MatrixBase):
        assert value.equals(back)
    else:
        assert back == value or (value is Ellipsis and back is Ellipsis)


def test_symbols_keep_their_assumptions():
    assert wire.decode(wire.encode(m)).is_positive and wire.decode(wire.encode(m)) == m


@pytest.mark.parametrize("text, why", [
    ('["apply", "Function", []]', "unknown value kind"),
    ('["sympy", ["apply", "Function", [["Integer", "1"]]]]', "not allowed"),
    ('["sympy", ["apply", "Pow", [["Integer", "1"]]]]', "cannot build"),
    ('["array", "O", [1], "AAAA"]', "not allowed"),
    ('["array", "<f8", [2], "AAAA"]', "do not match"),
    ('["array", "<f8", [1000000000], "AAAA"]', "too large"),
    ('["pickle", "gASVAAAAAAAAAAA="]', "unknown value kind"),
    ('["int", "' + "9" * 5000 + '"]', "too many digits"),
    ("[" * 5000 + "]" * 5000, "not valid JSON"),
    ('["dict", [[1, ["none"]]]]', "malformed dict"),
    ('["float", "np.float64(1.0)"]', "not a number"),
    ('["sympy", ["const", "__import__"]]', "unknown constant"),
])
def test_anything_else_is_refused(text, why):
    with pytest.raises(wire.WireError, match=why):
        wire.decode(text)


def test_objects_that_are_not_data_cannot_be_sent():
    with pytest.raises(wire.WireError, match="a value of type object"):
        wire.encode(object())
    with pytest.raises(wire.WireError, match="sympy Lambda"):
        wire.encode(sp.Lambda(m, m**2))
