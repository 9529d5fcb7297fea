"""Shared fixtures and a relative-tolerance comparison for the test suite."""

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")  # tests draw off-screen

import dynlib as dl


def assert_close(actual, desired, rtol=1e-10, scale=None):
    """Assert ``actual == desired`` within ``rtol`` relative to their magnitude (or to ``scale``
    when the expected value is zero): :func:`dynlib.relative_close` with a readable failure."""
    if np.shape(actual) != np.shape(desired) and np.ndim(desired) > 0:
        raise AssertionError(f"shapes differ: {np.shape(actual)} against {np.shape(desired)}")
    if not dl.relative_close(actual, desired, rtol, scale):
        np.testing.assert_allclose(actual, desired, rtol=rtol)  # prints the mismatch
        raise AssertionError(f"not close to rtol={rtol} (scale={scale}):\n{actual}\n{desired}")


def assert_exact(actual, desired):
    """Assert two sympy expressions or object arrays are identical (:func:`dynlib.exactly_zero`)."""
    diff = np.atleast_1d(np.asarray(actual, dtype=object) - np.asarray(desired, dtype=object))
    assert dl.exactly_zero(diff), f"not equal:\n{actual}\n{desired}"


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


try:
    import nbgrader  # noqa: F401
except ImportError:  # the grading tests need nbgrader; they run in .venv-grading (make grading)
    collect_ignore = ["grading"]
