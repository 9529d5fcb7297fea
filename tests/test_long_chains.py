"""Serial chains of a thousand bodies: the O(n) algorithms stay finite and consistent.

Two chains, at states drawn from a fixed seed:

- the planar chain of chapter 7's section "Conditioning on long chains" (uniform 1 kg, 1 m links,
  revolute joints) at random joint angles in [-1, 1] rad;
- a spatial chain with random revolute and prismatic joints (random axes, placements and inertias).

Reference values come from other O(n) algorithms, never from the mass matrix: ``crba`` alone takes
seconds at this size.  ``J H^-1 J^T w`` is the tip's acceleration when the wrench ``w`` alone acts on
the tip of a chain at rest without gravity, which the articulated-body algorithm gives.

Tolerances (relative; "measured" are the values at these seeds):

- ``aba(rnea(qdd)) = qdd`` to ``RNEA_ABA_RTOL = 1e-4``.  ``rnea`` hands ``aba`` a ``tau`` rounded to
  machine precision, and ``H^-1`` amplifies that by up to ``cond(H)``: chapter 7 measures
  ``cond(H) ~ n^2.8``, 1e10 at n = 1000 for random angles in [-1, 1], and an ``aba`` residual that grows
  about like ``n^3`` (fitted slopes 3.2 to 3.3) to 2e-6, as that of ``crba`` with a Cholesky solve
  does.  1e-4 leaves a factor of 50 over it for other draws of the angles, whose ``cond(H)`` varies by
  a factor of ten (measured: 1.4e-6 for the planar chain, 3e-9 for the spatial one).
- the tip's articulated mobility against ``J H^-1 J^T``, and the impulse against ``-H^-1 J^T n J`` and
  the law of contact: ``LOCAL_RTOL = 1e-6``.  These are properties of the tip and the links near it
  (a tip's mobility stops changing within about ten links, chapter 7), so they do not inherit
  ``cond(H)`` (measured: mobility 7e-10 and 1e-12, joint speed jumps 3e-9 and 1.4e-9, law of contact
  4e-9 and 6e-11).
"""

from dataclasses import replace

import numpy as np
import pytest

import dynlib as dl

N = 1000
RNEA_ABA_RTOL = 1e-4
LOCAL_RTOL = 1e-6


@pytest.fixture(scope="module", params=["planar revolute", "spatial revolute-prismatic"])
def long_chain(request):
    """A chain of N bodies, a configuration and velocities (gravity on); each test draws the rest itself."""
    rng = np.random.default_rng(1000)
    if request.param == "planar revolute":
        model = dl.planar_chain(N)
        q = rng.uniform(-1, 1, N)
    else:
        model = dl.random_tree(N, 7, kinds=["revolute", "prismatic"], branching=0.0)
        q = dl.random_configuration(model, rng)
    return model, q, rng.normal(size=model.nv)


def relative_error(actual, expected):
    return np.abs(actual - expected).max() / np.abs(expected).max()


def tip_response(model, q, wrench):
    """Joint accelerations and tip acceleration of the chain at rest, without gravity, under ``wrench`` on the tip."""
    still = replace(model, gravity=np.zeros(3))
    zero = np.zeros(model.nv)
    f_ext = np.zeros((model.n_bodies, 6))
    f_ext[-1] = wrench
    qdd = dl.aba(still, q, zero, zero, f_ext)  # H^-1 J^T w
    return qdd, dl.forward_kinematics(still, q, zero, qdd).a[-1]  # J H^-1 J^T w


def test_aba_inverts_rnea(long_chain):
    model, q, qd = long_chain
    qdd = np.random.default_rng(1).normal(size=model.nv)
    tau = dl.rnea(model, q, qd, qdd)
    back = dl.aba(model, q, qd, tau)
    assert np.all(np.isfinite(tau)) and np.all(np.isfinite(back))
    assert relative_error(back, qdd) < RNEA_ABA_RTOL


def test_tip_mobility_is_J_Hinv_JT(long_chain):
    model, q, _ = long_chain
    rng = np.random.default_rng(2)
    mob = dl.articulated_mobility(model, q)
    assert np.all(np.isfinite(mob.Lambda_inv))
    L = mob.Lambda_inv[-1]
    assert dl.relative_close(L, L.T, rtol=LOCAL_RTOL)
    assert np.linalg.eigvalsh((L + L.T) / 2).min() > -LOCAL_RTOL * np.abs(L).max()
    for w in rng.normal(size=(2, 6)):
        _, a_tip = tip_response(model, q, w)
        assert dl.relative_close(L @ w, a_tip, rtol=LOCAL_RTOL, scale=np.abs(L).max() * np.abs(w).max())


def test_impulse_propagation_is_finite_and_obeys_the_law_of_contact(long_chain):
    model, q, qd = long_chain
    rng = np.random.default_rng(3)
    kin = dl.forward_kinematics(model, q, qd)
    n = dl.line_coordinates(kin.p[-1] + 0.1 * rng.normal(size=3), rng.normal(size=3))
    n = n if n @ kin.v[-1] > 0 else -n  # the tip approaches the obstacle
    res = dl.impulse_propagation(model, q, qd, n, 0.5)
    for name in ("Phi", "ell", "dqd", "dv", "Lambda_bar_inv"):
        assert np.all(np.isfinite(getattr(res, name))), name
    assert np.isfinite(res.J) and res.J > 0
    assert abs(res.v_bounce + 0.5 * res.v_impact) < LOCAL_RTOL * abs(res.v_impact)
    dqd, _ = tip_response(model, q, -n * res.J)  # -H^-1 J^T n J
    assert relative_error(res.dqd, dqd) < LOCAL_RTOL
