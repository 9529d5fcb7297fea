"""Analytic derivatives of the dynamics: finite differences on the configuration manifold,
Pinocchio as an oracle, sympy exactly on the double pendulum, and the error paths."""

import numpy as np
import pytest
import sympy as sp

import dynlib as dl
from dynlib import aba_derivatives, rnea_derivatives

from conftest import assert_close

KINDS = list(dl.JOINT_KINDS)                     # every kind, fixed joints included
PIN_KINDS = [k for k in KINDS if k != "fixed"]   # Pinocchio has no fixed joint (a frame there)
#: (n_bodies, seed, branching): a single body, a chain, branched trees.
TREES = [(1, 0, 0.0), (4, 1, 0.0), (7, 2, 0.5), (9, 3, 0.9), (12, 4, 0.4)]


def state(model, rng):
    q, qd, qdd = dl.random_configuration(model, rng), dl.random_velocity(model, rng), dl.random_velocity(model, rng)
    return q, qd, qdd, rng.normal(size=(model.n_bodies, 6))


def central_q(fun, model, q, h):
    """Columns ``(fun(integrate(q, h e_k)) - fun(integrate(q, -h e_k))) / 2h``: tangent-space derivative."""
    E = np.eye(model.nv)
    return np.column_stack([(fun(dl.integrate(model, q, E[k], h)) - fun(dl.integrate(model, q, E[k], -h))) / (2 * h)
                            for k in range(model.nv)])


def central(fun, x, h):
    E = np.eye(x.size)
    return np.column_stack([(fun(x + h * E[k]) - fun(x - h * E[k])) / (2 * h) for k in range(x.size)])


# 1. finite differences along dl.integrate ---------------------------------------------------------------------

@pytest.mark.parametrize("n, seed, branching", TREES)
def test_rnea_derivatives_match_central_differences_on_the_manifold(n, seed, branching):
    model = dl.random_tree(n, seed, kinds=KINDS, branching=branching)
    q, qd, qdd, f_ext = state(model, np.random.default_rng(seed))
    dtau_dq, dtau_dqd, H = rnea_derivatives(model, q, qd, qdd, f_ext)
    h = 1e-5
    fd_q = central_q(lambda x: dl.rnea(model, x, qd, qdd, f_ext), model, q, h)
    fd_qd = central(lambda x: dl.rnea(model, q, x, qdd, f_ext), qd, h)
    fd_qdd = central(lambda x: dl.rnea(model, q, qd, x, f_ext), qdd, h)
    # error of a central difference: h^2 (third derivative, of the size of the entries: q, qd of
    # order one) plus round-off eps |tau| / h ~ 1e-11 |tau|; 1e-6 of the largest entry covers both
    # with a wide margin.  tau is quadratic in qd and linear in qdd: only round-off there.
    assert_close(dtau_dq, fd_q, rtol=1e-6)
    assert_close(dtau_dqd, fd_qd, rtol=1e-7)
    assert_close(H, fd_qdd, rtol=1e-7)
    assert_close(H, dl.crba(model, q), rtol=1e-12)   # the same sums in another order: well conditioned


@pytest.mark.parametrize("n, seed, branching", TREES)
def test_aba_derivatives_match_central_differences_on_the_manifold(n, seed, branching):
    model = dl.random_tree(n, seed, kinds=KINDS, branching=branching)
    q, qd, _, f_ext = state(model, np.random.default_rng(seed))
    tau = np.random.default_rng(seed + 1).normal(size=model.nv)
    dqdd_dq, dqdd_dqd, Hinv = aba_derivatives(model, q, qd, tau, f_ext)
    h = 1e-5
    fd_q = central_q(lambda x: dl.aba(model, x, qd, tau, f_ext), model, q, h)
    fd_qd = central(lambda x: dl.aba(model, q, x, tau, f_ext), qd, h)
    fd_tau = central(lambda x: dl.aba(model, q, qd, x, f_ext), tau, h)
    # aba's round-off is cond(H) eps relative; a difference divides it by h
    cond = np.linalg.cond(dl.crba(model, q))
    rtol = max(1e-6, 10 * cond * np.finfo(float).eps / h)
    assert_close(dqdd_dq, fd_q, rtol=rtol)
    assert_close(dqdd_dqd, fd_qd, rtol=rtol)
    assert_close(Hinv, fd_tau, rtol=rtol)
    assert_close(Hinv @ dl.crba(model, q), np.eye(model.nv), rtol=10 * cond * np.finfo(float).eps, scale=1.0)


def test_gravity_enters_like_rnea():
    """With qd = qdd = 0 only gravity is left: dtau/dq is the derivative of the gravity torques."""
    model = dl.random_tree(6, 7, kinds=KINDS, branching=0.5, gravity=(0.3, -9.81, 1.2))
    rng = np.random.default_rng(7)
    q, zero = dl.random_configuration(model, rng), np.zeros(model.nv)
    dtau_dq, dtau_dqd, _ = rnea_derivatives(model, q, zero, zero)
    assert_close(dtau_dq, central_q(lambda x: dl.rnea(model, x, zero, zero), model, q, 1e-5), rtol=1e-6)
    assert_close(dtau_dqd, np.zeros_like(dtau_dqd), rtol=1e-12, scale=np.abs(dtau_dq).max())
    weightless = dl.Model(model.parent, model.joints, model.placements, model.inertias, gravity=(0, 0, 0))
    assert_close(rnea_derivatives(weightless, q, zero, zero)[0], np.zeros_like(dtau_dq), rtol=1e-12,
                 scale=np.abs(dtau_dq).max())


# 2. Pinocchio -------------------------------------------------------------------------------------------------

PIN_CASES = [(0, 1, 0.0), (1, 5, 0.0), (2, 9, 0.5), (3, 14, 0.9), (4, 20, 0.3)]


def pinocchio_oracle():
    from pinocchio_bridge import pin, to_pinocchio  # skips these tests where Pinocchio is not installed

    return pin, to_pinocchio


def symmetric(upper):
    """Pinocchio fills the upper triangle of M and Minv."""
    return np.triu(upper) + np.triu(upper, 1).T


def body_fixed_correction(model, q, f_ext):
    """What Pinocchio adds to dtau/dq: its external wrenches are fixed in the body frames, so they turn
    with the bodies (``d f_ext_i = s_e x* f_ext_i``), while ours are fixed in the world.

    ``extra[r, e] = -s_r^T (s_e x* fx_m)``, ``fx_m`` the external wrenches summed over the deeper of
    the two subtrees (of joint r's body and of joint e's body) when one holds the other.
    """
    kin = dl.forward_kinematics(model, q)
    fx = f_ext.copy()
    for i in reversed(range(model.n_bodies)):
        if model.parent[i] >= 0:
            fx[model.parent[i]] += fx[i]
    extra = np.zeros((model.nv, model.nv))
    for b in range(model.n_bodies):
        for a in model.ancestors(b):                      # a is b or above it
            for row, column in ((a, b), (b, a)):          # row above and column below, and the reverse
                for r, s_r in zip(range(*model.v_slices[row].indices(model.nv)), kin.s[row].T):
                    for e, s_e in zip(range(*model.v_slices[column].indices(model.nv)), kin.s[column].T):
                        extra[r, e] = -s_r @ dl.cross_force(s_e, fx[b])
    return extra


def pinocchio_case(seed, n, branching):
    """Pinocchio, a random tree with its Pinocchio model and data, and a random state (with wrenches)."""
    pin, to_pinocchio = pinocchio_oracle()
    # Pinocchio's derivatives, like its crba, need depth-first numbering
    model = dl.random_tree(n, seed, kinds=PIN_KINDS, branching=branching, depth_first=True)
    pm = to_pinocchio(model)
    return pin, model, pm, pm.createData(), *state(model, np.random.default_rng(seed))


@pytest.mark.parametrize("seed, n, branching", PIN_CASES)
def test_rnea_and_aba_derivatives_agree_with_pinocchio(seed, n, branching):
    pin, model, pm, data, q, qd, qdd, _ = pinocchio_case(seed, n, branching)
    dtau_dq, dtau_dqd, H = rnea_derivatives(model, q, qd, qdd)
    p_dq, p_dv, p_M = (np.array(x) for x in pin.computeRNEADerivatives(pm, data, q, qd, qdd))
    # the same sums of well-scaled terms in another frame: 1e-8 relative leaves a wide margin
    assert_close(dtau_dq, p_dq, rtol=1e-8)
    assert_close(dtau_dqd, p_dv, rtol=1e-8)
    assert_close(H, symmetric(p_M), rtol=1e-8)
    tau = np.random.default_rng(seed + 1).normal(size=model.nv)
    dqdd_dq, dqdd_dqd, Hinv = aba_derivatives(model, q, qd, tau)
    a_dq, a_dv, a_Minv = (np.array(x) for x in pin.computeABADerivatives(pm, data, q, qd, tau))
    rtol = max(1e-8, 100 * np.linalg.cond(H) * np.finfo(float).eps)   # a solve with H on both sides
    assert_close(dqdd_dq, a_dq, rtol=rtol)
    assert_close(dqdd_dqd, a_dv, rtol=rtol)
    assert_close(Hinv, symmetric(a_Minv), rtol=rtol)


@pytest.mark.parametrize("seed, n, branching", PIN_CASES[1:4])
def test_with_external_wrenches_pinocchio_differs_by_its_body_fixed_convention(seed, n, branching):
    pin, model, pm, data, q, qd, qdd, f_ext = pinocchio_case(seed, n, branching)
    pin.forwardKinematics(pm, data, q)
    # our world wrenches about the origin, in Pinocchio's joint frames
    fext = [pin.Force.Zero()] + [data.oMi[i + 1].actInv(pin.Force(f_ext[i])) for i in range(model.n_bodies)]
    dtau_dq, dtau_dqd, H = rnea_derivatives(model, q, qd, qdd, f_ext)
    p_dq, p_dv, _ = (np.array(x) for x in pin.computeRNEADerivatives(pm, data, q, qd, qdd, fext))
    extra = body_fixed_correction(model, q, f_ext)
    assert_close(dtau_dq + extra, p_dq, rtol=1e-8)
    assert_close(dtau_dqd, p_dv, rtol=1e-8)
    tau = dl.rnea(model, q, qd, qdd, f_ext)
    dqdd_dq, dqdd_dqd, Hinv = aba_derivatives(model, q, qd, tau, f_ext)
    a_dq, a_dv, _ = (np.array(x) for x in pin.computeABADerivatives(pm, data, q, qd, tau, fext))
    rtol = max(1e-8, 100 * np.linalg.cond(H) * np.finfo(float).eps)
    assert_close(dqdd_dq - Hinv @ extra, a_dq, rtol=rtol)
    assert_close(dqdd_dqd, a_dv, rtol=rtol)


# 3. sympy, exactly --------------------------------------------------------------------------------------------

def exact_rnea_jacobians(model):
    """Assert that ``rnea_derivatives`` of a two-joint revolute model, on symbols ``q, qd, qdd``, are exactly
    the Jacobians of ``rnea`` (a tangent step of a revolute joint is a coordinate step); return ``q`` and ``H``."""
    q, qd, qdd = (sp.symbols(f"{name}1 {name}2", real=True) for name in ("q", "qd", "qdd"))
    args = [np.array(x, dtype=object) for x in (q, qd, qdd)]
    tau = sp.Matrix(dl.rnea(model, *args))
    dtau_dq, dtau_dqd, H = (sp.Matrix(x) for x in rnea_derivatives(model, *args))
    assert (dtau_dq - tau.jacobian(q)).applyfunc(sp.simplify) == sp.zeros(2, 2)
    assert (dtau_dqd - tau.jacobian(qd)).applyfunc(sp.simplify) == sp.zeros(2, 2)
    assert (H - tau.jacobian(qdd)).applyfunc(sp.simplify) == sp.zeros(2, 2)
    return q, H


def test_double_pendulum_exactly_the_jacobians_of_rnea():
    m1, m2, l1, l2, g = sp.symbols("m1 m2 l1 l2 g", positive=True)
    pendulum = dl.double_pendulum((m1, m2), (l1, l2), gravity=(0, -g, 0))
    q, H = exact_rnea_jacobians(pendulum)
    assert (H - sp.Matrix(dl.crba(pendulum, np.array(q, dtype=object)))).applyfunc(sp.simplify) == sp.zeros(2, 2)


def test_note_000_two_link_chain_exactly_the_jacobians_of_rnea():
    """Alexiou (2023)'s worked chain (uniform links of mass m and length L, no gravity), every argument a symbol."""
    m, L = sp.symbols("m L", positive=True)
    chain = dl.alexiou_two_link(m, L)
    q, H = exact_rnea_jacobians(chain)
    # and at the note's posture, q = 0, the third matrix is the CRBA's mass matrix
    assert (H.subs({q[0]: 0, q[1]: 0}) - sp.Matrix(dl.crba(chain, [0, 0]))).applyfunc(sp.simplify) == sp.zeros(2, 2)


def test_pendulum_forward_dynamics_derivatives_exactly():
    """aba_derivatives on sympy symbols (one link: the double pendulum's exact inverse takes minutes)."""
    q, qd, tau = sp.symbols("q qd tau", real=True)
    pendulum = dl.planar_chain(1)
    args = [np.array([x], dtype=object) for x in (q, qd, tau)]
    dqdd_dq, dqdd_dqd, Hinv = (sp.Matrix(x) for x in aba_derivatives(pendulum, *args))
    qdd = sp.Matrix(dl.aba(pendulum, *args))
    assert (dqdd_dq - qdd.jacobian([q])).applyfunc(sp.simplify) == sp.zeros(1, 1)
    assert (dqdd_dqd - qdd.jacobian([qd])).applyfunc(sp.simplify) == sp.zeros(1, 1)
    assert (Hinv - qdd.jacobian([tau])).applyfunc(sp.simplify) == sp.zeros(1, 1)


# 4. errors ----------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def tree():
    return dl.random_tree(4, 11, kinds=KINDS, branching=0.5)


def test_wrong_lengths_are_refused(tree):
    q, qd, qdd, f_ext = state(tree, np.random.default_rng(0))
    with pytest.raises(ValueError, match="q"):
        rnea_derivatives(tree, q[:-1], qd, qdd)
    with pytest.raises(ValueError, match="qd"):
        rnea_derivatives(tree, q, np.append(qd, 0.0), qdd)
    with pytest.raises(ValueError, match="qdd"):
        rnea_derivatives(tree, q, qd, qdd[:-1])
    with pytest.raises(ValueError, match="f_ext"):
        rnea_derivatives(tree, q, qd, qdd, f_ext[:-1])
    with pytest.raises(ValueError, match="tau"):
        aba_derivatives(tree, q, qd, qdd[:-1])
    with pytest.raises(ValueError, match="batch"):   # batches of two and three states
        rnea_derivatives(tree, np.stack([q, q]), np.stack([qd, qd, qd]), qdd)


@pytest.mark.parametrize("which", ["q", "qd", "qdd", "f_ext"])
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_values_are_refused(tree, which, bad):
    values = dict(zip(("q", "qd", "qdd", "f_ext"), state(tree, np.random.default_rng(0))))
    values[which] = values[which].copy()
    values[which].flat[-1] = bad
    with pytest.raises(ValueError, match=which):
        rnea_derivatives(tree, **values)
    tau = values.pop("qdd")
    with pytest.raises(ValueError, match=which if which != "qdd" else "tau"):
        aba_derivatives(tree, tau=tau if which == "qdd" else np.zeros(tree.nv), **values)


def test_a_quaternion_off_unit_length_is_refused():
    model = dl.random_tree(2, 0, kinds=["spherical"])
    q, qd, qdd, _ = state(model, np.random.default_rng(0))
    with pytest.raises(ValueError, match="quaternion"):
        rnea_derivatives(model, 1.01 * q, qd, qdd)


def test_a_massless_tip_makes_forward_dynamics_derivatives_an_error():
    chain = dl.planar_chain(2)
    inertias = list(chain.inertias)
    inertias[-1] = np.zeros((6, 6))
    massless = dl.Model(chain.parent, chain.joints, chain.placements, inertias, gravity=chain.gravity)
    with pytest.raises(ValueError, match="no inertia"):
        aba_derivatives(massless, [0.1, 0.2], [0.0, 0.0], [0.0, 0.0])
    # inverse dynamics needs no inverse: its derivatives exist
    assert np.all(np.isfinite(rnea_derivatives(massless, [0.1, 0.2], [0.3, 0.0], [0.0, 0.0])[0]))
