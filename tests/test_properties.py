"""Property-based tests: the identities of the dynamics on random trees drawn by hypothesis.

Each example is a :class:`Case`: the parameters of :func:`dynlib.random_tree` (1 to 7 bodies,
a seed, a non-empty set of joint kinds, a branching probability) and of the state (a seed and
a scale for ``q``, ``qd``, ``qdd`` or ``tau``, and the external wrenches).  Its repr is those
few numbers, so a falsifying example printed by hypothesis rebuilds the failing model and
state exactly::

    case = Case(n_bodies=3, tree_seed=..., kinds=(...), branching=..., state_seed=..., scale=...)
    model, (q, qd, qdd, f_ext) = case.model, case.state()

Tolerances are relative (:func:`dynlib.relative_close`).  Identities without a linear solve
are checked against the size of the terms that cancel.  Where a solve with ``H`` is involved,
rounding errors are amplified by the conditioning of the problem, so the scale is the size
of the terms times that conditioning (:func:`forward_dynamics_scale`): a large but well-posed
mass matrix is not a reason to discard a draw.  ``assume`` only discards draws where the
mathematics is singular (said where it is used).  Hypothesis keeps no example database
(``database=None``), so every run draws afresh; it still caches the constants it reads from
source files in ``.hypothesis/constants`` (a directory that gitignores itself).
"""

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import dynlib as dl
from dynlib.algorithms.body_frame import aba_body_frame, rnea_body_frame

from conftest import assert_close

#: Every joint kind random_tree accepts, "fixed" (nq = nv = 0) included: the algorithms must
#: handle joints with no freedom, and trees with none at all.  "fixed" comes last so that
#: hypothesis, which shrinks towards the first element, prefers trees that move.
KINDS = tuple(dl.JOINT_KINDS)
SEED = st.integers(0, 2**32 - 1)

EPS = np.finfo(float).eps
#: Relative rounding error allowed per unit of conditioned scale, for the recursive algorithms
#: (rnea, crba, aba, their body-frame, hybrid and stacked forms).  Surveys of many thousand draws
#: stay below 200 eps; errors of a wrong formula are of order one.
ROUNDING = 1e4 * EPS
#: The same for the algorithms built on the articulated-mobility recursion (Alexiou eqs. 15-16:
#: articulated_mobility, split_chain_dynamics; impulses use IMPULSE_ROUNDING).  Its steps solve with
#: ``1 + Psi I`` in world coordinates, whose conditioning follows that of the world-frame inertias
#: (1e5 to 1e7 for bodies a few metres from the origin) even in the symmetric form.  Surveys of 4,500
#: draws (16,700 sub-chains) stay below 2.6e5 eps (5.8e-11) for the mobility, against 1.9e6 eps for the
#: printed form of eq. 16 (see test_articulated_mobility_is_as_accurate_as_the_problem), and below
#: 3.4e3 eps for the bias and 4.6e3 eps for chain splitting.
MOBILITY_ROUNDING = 1e-9


def relaxed(max_examples):
    """Settings for one property: no deadline (the first call imports and warms numpy), no database."""
    return settings(max_examples=max_examples, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow])


@dataclass(frozen=True)
class Case:
    """A random tree and state, described by the few numbers hypothesis draws."""

    n_bodies: int
    tree_seed: int
    kinds: tuple
    branching: float
    state_seed: int
    scale: float

    @cached_property
    def model(self):
        return dl.random_tree(self.n_bodies, self.tree_seed, kinds=list(self.kinds), branching=self.branching)

    def rng(self, stream=0):
        """A generator for the state (stream 0) or for extra data of a test (other streams)."""
        return np.random.default_rng([self.state_seed, stream])

    def state(self):
        """q, qd, qdd (or tau) and external wrenches f_ext, all of size about ``scale``."""
        model, rng, s = self.model, self.rng(), self.scale
        q = dl.random_configuration(model, rng, s)
        qd = dl.random_velocity(model, rng, s)
        qdd = dl.random_velocity(model, rng, s)
        f_ext = rng.normal(scale=s, size=(model.n_bodies, 6))
        return q, qd, qdd, f_ext


@st.composite
def cases(draw, chains=False, max_bodies=7):
    """A :class:`Case`: a branched tree (or a serial chain) with mixed joint kinds, and a state."""
    return Case(
        n_bodies=draw(st.integers(1, max_bodies)),
        tree_seed=draw(SEED),
        kinds=tuple(draw(st.lists(st.sampled_from(KINDS), min_size=1, max_size=len(KINDS), unique=True))),
        branching=0.0 if chains else draw(st.sampled_from([0.0, 0.3, 0.6, 1.0])),
        state_seed=draw(SEED),
        scale=draw(st.sampled_from([0.1, 0.5, 1.0, 2.0, 3.0])),
    )


def size(x):
    """Largest magnitude of an array (0 for an empty one)."""
    return float(np.abs(np.asarray(x, dtype=float)).max(initial=0.0))


def extreme_eigenvalues(H):
    """(lambda_min, lambda_max) of a positive definite H; (1, 1) for a tree that cannot move."""
    if H.size == 0:
        return 1.0, 1.0
    w = np.linalg.eigvalsh(H)
    return w[0], w[-1]


def forward_dynamics_scale(H, qdd, *forces):
    """Rounding scale of ``qdd = H^-1 (tau - C)``: ``(|H| |qdd| + |tau| + |C|) / lambda_min(H)``.

    A backward-stable solve errs by eps times this: the relative error of ``qdd`` grows with
    cond(H), and when ``tau`` and ``C`` nearly cancel it is relative to them, not to ``qdd``.
    """
    lo, hi = extreme_eigenvalues(H)
    return (hi * size(qdd) + sum(size(f) for f in forces)) / lo


def joint_mask(model, flags):
    """Per-body flags expanded to the model's velocity coordinates."""
    return np.concatenate([[f] * j.nv for f, j in zip(flags, model.joints)]).astype(bool)


def joint_twists_norm(kin):
    """A bound on every body Jacobian's 2-norm: the Frobenius norm of all joint twists."""
    return float(np.sqrt(sum(np.sum(s**2) for s in kin.s)))


# --- inverse and forward dynamics, mass matrix --------------------------------------------------


@relaxed(500)
@given(cases())
def test_aba_inverts_rnea(case):
    model = case.model
    q, qd, qdd, f_ext = case.state()
    tau = dl.rnea(model, q, qd, qdd, f_ext)
    H, C = dl.crba(model, q), dl.bias_forces(model, q, qd, f_ext)
    assert_close(dl.aba(model, q, qd, tau, f_ext), qdd, rtol=ROUNDING, scale=forward_dynamics_scale(H, qdd, tau, C))


@relaxed(500)
@given(cases())
def test_mass_matrix_and_bias_forces_reproduce_rnea(case):
    """H qdd + C(q, qd, f_ext) = rnea(q, qd, qdd, f_ext): the equations of motion."""
    model = case.model
    q, qd, qdd, f_ext = case.state()
    H, C = dl.crba(model, q), dl.bias_forces(model, q, qd, f_ext)
    scale = size(H) * size(qdd) * max(model.nv, 1) + size(C)  # the two terms may cancel
    assert_close(H @ qdd + C, dl.rnea(model, q, qd, qdd, f_ext), rtol=ROUNDING, scale=scale)


@relaxed(400)
@given(cases())
def test_mass_matrix_is_symmetric_positive_definite(case):
    model = case.model
    H = dl.crba(model, case.state()[0])
    assert H.shape == (model.nv, model.nv)
    assert_close(H, H.T, rtol=1e-13)
    np.linalg.cholesky(H)  # raises LinAlgError unless positive definite (every body has mass)
    assert np.linalg.eigvalsh(H).min(initial=np.inf) > 0


@relaxed(300)
@given(cases())
def test_mass_matrix_columns_are_rnea_of_unit_accelerations(case):
    """H e_j = rnea(q, qd, e_j) - rnea(q, qd, 0) for any qd and f_ext: rnea is affine in qdd."""
    model = case.model
    q, qd, _, f_ext = case.state()
    C = dl.rnea(model, q, qd, np.zeros(model.nv), f_ext)
    H = dl.crba(model, q)
    for j, e in enumerate(np.eye(model.nv)):
        column = dl.rnea(model, q, qd, e, f_ext) - C
        assert_close(column, H[:, j], rtol=ROUNDING, scale=size(H) + size(C))


@relaxed(400)
@given(cases())
def test_kinetic_energy_is_half_qd_H_qd(case):
    model = case.model
    q, qd, _, _ = case.state()
    H = dl.crba(model, q)
    T = dl.system_kinetic_energy(model, q, qd)
    assert_close(T, qd @ H @ qd / 2, rtol=ROUNDING, scale=np.abs(qd) @ np.abs(H) @ np.abs(qd))
    assert T >= 0


@relaxed(400)
@given(cases())
def test_power_balance(case):
    """qd . tau + sum_i v_i . f_ext_i = dT/dt + dV/dt, exactly, along the motion rnea is asked for.

    With world inertias I_i (dI_i/dt = v_i x* I_i - I_i v_i x) and accelerations a_i = dv_i/dt,
    d/dt (v_i . I_i v_i / 2) = v_i . I_i a_i + v_i . (v_i x* I_i v_i) / 2 - (v_i x v_i) . I_i v_i / 2
    = v_i . I_i a_i, and the potential -sum_i m_i g . c_i changes at -sum_i v_i . I_i [g; 0]
    (checked against V itself in test_potential_energy_rate_is_the_power_of_gravity).  The left
    side is the power of the joint forces and the external wrenches.
    """
    model = case.model
    q, qd, qdd, f_ext = case.state()
    tau = dl.rnea(model, q, qd, qdd, f_ext)
    kin = dl.forward_kinematics(model, q, qd, qdd)
    Ia = (dl.world_inertias(model, kin) @ kin.a[..., None])[..., 0]
    v_weight = kin.v * dl.gravity_wrenches(model, kin)
    dT, dV = np.sum(kin.v * Ia), -np.sum(v_weight)
    power = tau @ qd + np.sum(kin.v * f_ext)
    scale = np.abs(tau * qd).sum() + np.abs(kin.v * f_ext).sum() + np.abs(kin.v * Ia).sum() + np.abs(v_weight).sum()
    assert_close(power, dT + dV, rtol=ROUNDING, scale=scale)


@relaxed(300)
@given(cases())
def test_potential_energy_rate_is_the_power_of_gravity(case):
    """dV/dt = -sum_i v_i . I_i [g; 0]: the gravity term of the power balance, against V(q(t)).

    The bodies move along the exact flow of a constant joint velocity (dl.integrate); the rate
    at t = 0 is a central difference, whose truncation error is O(h^2), hence the tolerance.
    """
    model = case.model
    q, qd, _, _ = case.state()
    kin = dl.forward_kinematics(model, q, qd)
    rate = -np.sum(kin.v * dl.gravity_wrenches(model, kin))
    h = 1e-6
    V = [dl.system_potential_energy(model, dl.integrate(model, q, qd, t)) for t in (-h, h)]
    reach = 1.0 + np.linalg.norm(kin.p, axis=1).max()  # |v_O| + |w| |r| bounds the speed of a centre of mass
    scale = np.linalg.norm(model.gravity) * model.mass.sum() * size(kin.v) * reach
    assert_close((V[1] - V[0]) / (2 * h), rate, rtol=1e-6, scale=scale)


# --- body-frame, hybrid and stacked variants ---------------------------------------------------


@relaxed(300)
@given(cases())
def test_body_frame_algorithms_equal_world_frame_ones(case):
    """Kim's body-frame rnea and aba give the world-frame tau and qdd (wrenches f_i -> X_0i^T f_i)."""
    model = case.model
    q, qd, qdd, f_ext = case.state()
    kin = dl.forward_kinematics(model, q)
    f_body = np.array([dl.motion_transform(kin.R[i], kin.p[i]).T @ f_ext[i] for i in range(model.n_bodies)])
    tau = dl.rnea(model, q, qd, qdd, f_ext)
    H, C = dl.crba(model, q), dl.bias_forces(model, q, qd, f_ext)
    assert_close(rnea_body_frame(model, q, qd, qdd, f_body).tau, tau, rtol=ROUNDING,
                 scale=size(H) * size(qdd) * max(model.nv, 1) + size(C))
    assert_close(aba_body_frame(model, q, qd, tau, f_body).qdd, qdd, rtol=ROUNDING,
                 scale=forward_dynamics_scale(H, qdd, tau, C))


@relaxed(300)
@given(cases(), st.data())
def test_hybrid_dynamics_extremes_and_mixtures(case, data):
    """All joints prescribed: rnea; none: aba; any mixture: the entries the other half implies."""
    model = case.model
    q, qd, qdd, f_ext = case.state()
    tau = dl.rnea(model, q, qd, qdd, f_ext)
    H, C = dl.crba(model, q), dl.bias_forces(model, q, qd, f_ext)
    qdd_scale = forward_dynamics_scale(H, qdd, tau, C)
    tau_scale = qdd_scale * extreme_eigenvalues(H)[1]
    noise = case.rng(1).normal(size=model.nv)
    n = model.n_bodies
    qdd_all, tau_all = dl.hybrid_dynamics(model, q, qd, qdd, noise, [True] * n, f_ext)
    assert_close(tau_all, tau, rtol=ROUNDING, scale=tau_scale)
    assert_close(qdd_all, qdd, rtol=0)  # copied
    qdd_none, tau_none = dl.hybrid_dynamics(model, q, qd, noise, tau, [False] * n, f_ext)
    assert_close(qdd_none, qdd, rtol=ROUNDING, scale=qdd_scale)
    assert_close(tau_none, tau, rtol=0)
    accel_given = data.draw(st.lists(st.booleans(), min_size=n, max_size=n), label="accel_given")
    mask = joint_mask(model, accel_given)
    qdd_h, tau_h = dl.hybrid_dynamics(model, q, qd, np.where(mask, qdd, noise), np.where(mask, noise, tau),
                                      accel_given, f_ext)
    assert_close(qdd_h, qdd, rtol=ROUNDING, scale=qdd_scale)
    assert_close(tau_h, tau, rtol=ROUNDING, scale=tau_scale)


@relaxed(300)
@given(cases())
def test_stacked_forward_dynamics_equals_aba(case):
    """One sparse solve gives aba's qdd and the body accelerations of forward kinematics."""
    model = case.model
    q, qd, tau, f_ext = case.state()
    qdd = dl.aba(model, q, qd, tau, f_ext)
    H, C = dl.crba(model, q), dl.bias_forces(model, q, qd, f_ext)
    scale = forward_dynamics_scale(H, qdd, tau, C)
    res = dl.stacked_forward_dynamics(model, q, qd, tau, f_ext)
    assert_close(res.qdd, qdd, rtol=ROUNDING, scale=scale)
    kin = dl.forward_kinematics(model, q, qd, qdd)
    assert_close(res.a, kin.a, rtol=ROUNDING,
                 scale=joint_twists_norm(kin) * scale + size(kin.a) + np.linalg.norm(model.gravity))


# --- kinematics ----------------------------------------------------------------------------------


@relaxed(300)
@given(cases())
def test_body_jacobian_maps_joint_velocities_to_body_twists(case):
    """J_i qd = v_i (world frame) and, in the body's own frame, X_i0 v_i."""
    model = case.model
    q, qd, _, _ = case.state()
    kin = dl.forward_kinematics(model, q, qd)
    scale = joint_twists_norm(kin) * size(qd)
    for i in range(model.n_bodies):
        assert_close(dl.body_jacobian(model, q, i) @ qd, kin.v[i], rtol=ROUNDING, scale=scale)
        X_i0 = dl.inverse_transform(dl.motion_transform(kin.R[i], kin.p[i]))
        assert_close(dl.body_jacobian(model, q, i, frame="local") @ qd, X_i0 @ kin.v[i], rtol=ROUNDING,
                     scale=scale * (1 + np.linalg.norm(kin.p[i])))


# --- serial chains: articulated mobility, chain splitting, impacts ------------------------------


def sub_chain_mobility(model, q, k):
    """J H^-1 J^T of the sub-chain of bodies 0 .. k-1 for its last body, and the scale |J|^2 / lambda_min(H)."""
    sub = model.first_bodies(k)
    qs = q[: sub.nq]
    if sub.nv == 0:
        return np.zeros((6, 6)), 0.0
    J, H = dl.body_jacobian(sub, qs, k - 1), dl.crba(sub, qs)
    return J @ np.linalg.solve(H, J.T), np.linalg.norm(J, 2) ** 2 / extreme_eigenvalues(H)[0]


@relaxed(150)
@given(cases(chains=True))
def test_mobility_of_each_sub_chain_is_J_Hinv_JT(case):
    model = case.model
    q, qd, tau, f_ext = case.state()
    mob = dl.articulated_mobility(model, q, qd, tau, f_ext)
    for k in range(1, model.n_bodies + 1):
        L = mob.Lambda_inv[k - 1]
        expected, scale = sub_chain_mobility(model, q, k)
        assert_close(L, expected, rtol=MOBILITY_ROUNDING, scale=scale)
        assert_close(L, L.T, rtol=MOBILITY_ROUNDING, scale=scale)
        assert np.linalg.eigvalsh((L + L.T) / 2).min() >= -MOBILITY_ROUNDING * scale
        # the bias: the acceleration of body k - 1 of the free sub-chain (gravity as base acceleration)
        sub = model.first_bodies(k)
        qs, vs = q[: sub.nq], slice(0, sub.nv)
        qdd = dl.aba(sub, qs, qd[vs], tau[vs], f_ext[:k])
        kin = dl.forward_kinematics(sub, qs, qd[vs], qdd)
        H, C = dl.crba(sub, qs), dl.bias_forces(sub, qs, qd[vs], f_ext[:k])
        a_scale = joint_twists_norm(kin) * forward_dynamics_scale(H, qdd, tau[vs], C) + size(kin.a)
        a_scale += size(model.gravity)
        assert_close(mob.b[k - 1], kin.a[k - 1] - dl.gravity_acceleration(model), rtol=MOBILITY_ROUNDING, scale=a_scale)


@relaxed(250)
@given(cases(chains=True))
def test_chain_splitting_equals_aba_at_every_split(case):
    model = case.model
    q, qd, tau, f_ext = case.state()
    expected = dl.aba(model, q, qd, tau, f_ext)
    H, C = dl.crba(model, q), dl.bias_forces(model, q, qd, f_ext)
    scale = forward_dynamics_scale(H, expected, tau, C)
    for split in range(model.n_bodies + 1):
        actual = dl.split_chain_dynamics(model, q, qd, tau, split, f_ext)
        assert_close(actual, expected, rtol=MOBILITY_ROUNDING if split else ROUNDING, scale=scale)


def test_articulated_mobility_is_as_accurate_as_the_problem():
    """The symmetric form of eq. 16 keeps the digits that the printed form loses after free joints.

    Chain: translational, helical, free, translational, free, translational (the drawn kinds
    include revolute and prismatic, which this seed does not pick).  Perturbing the inertias by
    one ulp moves J H^-1 J^T of the whole chain by 1e-12 (relative), and float64 J H^-1 J^T is
    within 5e-14 of a 40-digit mpmath evaluation.  With note 000's printed ``Psi = P Lambda_inv``,
    ``1 + Psi I`` reaches cond 1.3e7 at body 3 and 1.1e10 at body 5 (numbered from 0): the parent's mobility along
    the directions the joint itself takes stays in ``Psi`` (P removes it on the left only) and makes
    the matrix far from normal, and the mobility is off by 1.5e-8.  ``Psi = P Lambda_inv P^T``, equal
    in exact arithmetic because a joint passes on only reactions (``l = P^T l``), keeps every
    ``1 + Psi I`` below cond 1e4 here and the mobility within 1e-11.
    """
    case = Case(n_bodies=6, tree_seed=6, kinds=("translational", "free", "revolute", "helical", "prismatic"),
                branching=0.0, state_seed=3, scale=3.0)
    model, q = case.model, case.state()[0]
    assert [j.kind for j in model.joints] == ["translational", "helical", "free", "translational", "free",
                                              "translational"]
    expected, _ = sub_chain_mobility(model, q, model.n_bodies)
    I = dl.world_inertias(model, dl.forward_kinematics(model, q))
    symmetric, printed = (dl.articulated_mobility(model, q, form=form) for form in ("symmetric", "printed"))
    assert_close(symmetric.Lambda_inv[-1], expected, rtol=1e-10)
    assert max(np.linalg.cond(np.eye(6) + Psi @ Ii) for Psi, Ii in zip(symmetric.Psi, I)) < 1e4
    # the printed form: the same matrix in exact arithmetic, four digits fewer in floating point
    assert np.linalg.cond(np.eye(6) + printed.Psi[-1] @ I[-1]) > 1e9
    assert not dl.relative_close(printed.Lambda_inv[-1], expected, rtol=1e-9)
    assert_close(printed.Lambda_inv[-1], expected, rtol=1e-6)


def contact_case(case, data):
    """A contact body, a contact line near it and a restitution, with the mass matrix and Jacobian.

    Also the conditioning ``kappa = |J_k^T n|^2 / (lambda_min(H) n^T Lambda_inv n)`` of the
    impulse magnitude ``(1 + eps) n.v / n^T Lambda_inv n``: a relative rounding error of H
    changes ``n^T Lambda_inv n`` by up to kappa times as much, relative.
    """
    model = case.model
    q, qd, _, _ = case.state()
    body = data.draw(st.integers(0, model.n_bodies - 1), label="body")
    epsilon = data.draw(st.sampled_from([0.0, 0.3, 0.7, 1.0]), label="epsilon")
    rng = case.rng(2)
    kin = dl.forward_kinematics(model, q, qd)
    n = dl.line_coordinates(kin.p[body] + rng.normal(scale=0.3, size=3), rng.normal(size=3))
    H = dl.crba(model, q)
    Jk = dl.body_jacobian(model, q, body)
    Jn = Jk.T @ n
    reach = Jn @ np.linalg.solve(H, Jn) if model.nv else 0.0
    lo, _ = extreme_eigenvalues(H)
    # reach = 0: the line is reciprocal to every twist the joints give the body (every joint fixed,
    # or e.g. a prismatic joint across the line): no impulse exists and the library raises a
    # ValueError.  Within rounding of zero (relative 1e-9) the draw is singular in float64.
    assume(reach > 1e-9 * (Jn @ Jn) / lo)
    kappa = (Jn @ Jn) / (lo * reach)
    return q, qd, body, epsilon, n, kin, H, Jn, kappa


#: Impacts: relative error per unit of the impulse's conditioning kappa (surveys: below 1e-10).
IMPULSE_ROUNDING = 1e-8


@relaxed(250)
@given(cases(chains=True), st.data())
def test_impulse_propagation_equals_the_joint_space_answer_and_obeys_the_law_of_contact(case, data):
    """dqd = -H^-1 J_k^T n J; n.(v_k + dv_k) = -eps n.v_k; T drops by (1 - eps^2) (n.v_k)^2 / 2 n^T Lambda_inv n."""
    model = case.model
    q, qd, body, epsilon, n, kin, H, Jn, kappa = contact_case(case, data)
    res = dl.impulse_propagation(model, q, qd, n, epsilon, body=body)
    J, dqd = dl.contact_impulse(model, q, qd, n, epsilon, body)
    assert_close(res.J, J, rtol=IMPULSE_ROUNDING, scale=abs(J) * kappa)
    assert_close(res.dqd, dqd, rtol=IMPULSE_ROUNDING, scale=size(dqd) * kappa)
    assert_close(res.v_impact, n @ kin.v[body], rtol=ROUNDING, scale=size(n) * size(kin.v) * 6)
    assert_close(res.v_bounce, -epsilon * res.v_impact, rtol=IMPULSE_ROUNDING, scale=abs(res.v_impact) * kappa)
    # the twist jumps are the Jacobian times the joint jumps
    dv = [dl.body_jacobian(model, q, i) @ res.dqd for i in range(model.n_bodies)]
    assert_close(res.dv, dv, rtol=ROUNDING, scale=joint_twists_norm(kin) * size(res.dqd))
    # kinetic energy: T1 - T0 = qd^T H dqd + dqd^T H dqd / 2 = -(1 - eps^2) (n.v)^2 / (2 n^T Lambda_inv n)
    T0, T1 = dl.system_kinetic_energy(model, q, qd), dl.system_kinetic_energy(model, q, qd + res.dqd)
    loss = (1 - epsilon**2) * res.v_impact**2 / (2 * (n @ res.Lambda_bar_inv[body] @ n))
    # an error dJ in the impulse changes T1 by (n.v_after) dJ = -eps (n.v) dJ; T0 - T1 itself cancels
    scale = abs(J * res.v_impact) * kappa + (T0 + T1) * ROUNDING / IMPULSE_ROUNDING
    assert_close(T0 - T1, loss, rtol=IMPULSE_ROUNDING, scale=scale)


@relaxed(300)
@given(cases(), st.data())
def test_contact_impulse_obeys_the_law_of_contact_on_branched_trees(case, data):
    """n.(v_k + dv_k) = -eps n.v_k, and the impulse acts along n on body k only (H dqd || J_k^T n)."""
    model = case.model
    q, qd, body, epsilon, n, kin, H, Jn, kappa = contact_case(case, data)
    J, dqd = dl.contact_impulse(model, q, qd, n, epsilon, body)
    after = dl.forward_kinematics(model, q, qd + dqd).v[body]
    v_impact = n @ kin.v[body]
    lo, hi = extreme_eigenvalues(H)
    assert_close(n @ after, -epsilon * v_impact, rtol=IMPULSE_ROUNDING, scale=abs(v_impact) * kappa)
    Hdqd = H @ dqd
    residual = Hdqd - Jn * (Jn @ Hdqd) / (Jn @ Jn)
    assert_close(residual, np.zeros(model.nv), rtol=ROUNDING, scale=size(Hdqd) * hi / lo)


@pytest.mark.parametrize("kind", KINDS)
def test_cases_reach_every_joint_kind(kind):
    """The strategy can draw each kind alone (guards against KINDS drifting from random_tree)."""
    model = Case(3, 0, (kind,), 0.5, 0, 1.0).model
    assert {j.kind for j in model.joints} == {kind}
