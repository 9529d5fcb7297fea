"""Shared fixtures and a relative-tolerance comparison for the test suite."""

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")  # tests draw off-screen

import dynlib as dl


def assert_close(actual, desired, rtol=1e-10, scale=None):
    """Assert ``actual == desired`` within ``rtol`` relative to the larger of their magnitudes.

    When ``desired`` is zero, pass ``scale``: the size of the terms that cancel.
    """
    actual = np.asarray(actual, dtype=float)
    desired = np.asarray(desired, dtype=float)
    if scale is None:
        scale = max(np.abs(desired).max(initial=0.0), np.abs(actual).max(initial=0.0))
    scale = max(scale, np.finfo(float).tiny)
    np.testing.assert_allclose(actual, desired, rtol=0, atol=rtol * scale)


def _trig_normal_form(expr):
    """Expand, write sin/cos of each angle as symbols s, c and reduce c**2 -> 1 - s**2.

    The result is zero exactly when ``expr`` is identically zero as a trigonometric polynomial.
    """
    import sympy

    expr = sympy.expand(sympy.expand_trig(sympy.expand(expr)))
    angles = {f.args[0] for f in expr.atoms(sympy.sin, sympy.cos)}
    for k, angle in enumerate(sorted(angles, key=sympy.default_sort_key)):
        s, c = sympy.Dummy(f"s{k}"), sympy.Dummy(f"c{k}")
        expr = sympy.expand(expr.xreplace({sympy.sin(angle): s, sympy.cos(angle): c}))
        poly = sympy.Poly(expr, c)
        expr = sympy.expand(
            sum(coeff * c ** (k % 2) * (1 - s**2) ** (k // 2) for (k,), coeff in poly.terms())
        )
    return expr


def assert_exact(actual, desired):
    """Assert two sympy expressions or object arrays are identical (trigonometric identities included)."""
    import sympy

    diff = np.atleast_1d(np.asarray(actual, dtype=object) - np.asarray(desired, dtype=object)).ravel()
    for k, d in enumerate(diff):
        d = sympy.sympify(d)
        if sympy.expand(d) != 0 and _trig_normal_form(d) != 0 and sympy.simplify(d) != 0:
            raise AssertionError(f"entry {k} differs by {sympy.simplify(d)}:\n{actual}\n{desired}")


@pytest.fixture
def rng():
    return np.random.default_rng(20261121)


#: (n_bodies, seed, branching): chains, branched trees, a single body; all joint kinds mixed.
TREES = [(1, 0, 0.0), (4, 1, 0.0), (7, 2, 0.5), (9, 3, 0.9), (12, 4, 0.4)]


@pytest.fixture(params=TREES, ids=lambda t: f"n{t[0]}-seed{t[1]}-branch{t[2]}")
def tree(request):
    n, seed, branching = request.param
    return dl.random_tree(n, seed, branching=branching, kinds=list(dl.JOINT_KINDS))


def random_state(model, rng):
    """q, qd, qdd for a model."""
    return (
        dl.random_configuration(model, rng),
        dl.random_velocity(model, rng),
        dl.random_velocity(model, rng),
    )
