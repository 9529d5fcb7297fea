"""Batched evaluation: a leading batch of states gives, through the same code, exactly the
results of evaluating the states one at a time."""

import numpy as np
import pytest

import dynlib as dl
from dynlib.course.checks import relative_close

KINDS = ["revolute", "prismatic", "helical", "spherical", "translational", "free", "fixed"]


def tree_and_states(seed, n_bodies=6, batch=(5,)):
    rng = np.random.default_rng(seed)
    model = dl.random_tree(n_bodies, seed, kinds=KINDS)
    size = int(np.prod(batch))
    q = np.array([dl.random_configuration(model, rng) for _ in range(size)]).reshape(batch + (model.nq,))
    qd, qdd, tau = (rng.standard_normal(batch + (model.nv,)) for _ in range(3))
    f_ext = rng.standard_normal(batch + (model.n_bodies, 6))
    return model, q, qd, qdd, tau, f_ext


def one_at_a_time(func, *batched):
    """``func`` applied to each state of the batch (all arguments share the batch shape)."""
    batch = batched[0].shape[:-1]
    flat = [np.reshape(x, (-1,) + x.shape[len(batch):]) for x in batched]
    results = [func(*(x[k] for x in flat)) for k in range(flat[0].shape[0])]
    return np.array(results).reshape(batch + np.shape(results[0]))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("batch", [(5,), (2, 3)])
def test_dynamics_of_a_batch_equal_the_dynamics_of_each_state(seed, batch):
    model, q, qd, qdd, tau, f_ext = tree_and_states(seed, batch=batch)
    cases = {
        "rnea": (lambda *x: dl.rnea(model, *x), (q, qd, qdd)),
        "rnea with f_ext": (lambda q, qd, qdd, f: dl.rnea(model, q, qd, qdd, f), (q, qd, qdd, f_ext)),
        "bias_forces": (lambda *x: dl.bias_forces(model, *x), (q, qd)),
        "crba": (lambda q: dl.crba(model, q), (q,)),
        "aba": (lambda *x: dl.aba(model, *x), (q, qd, tau)),
        "aba with f_ext": (lambda q, qd, tau, f: dl.aba(model, q, qd, tau, f), (q, qd, tau, f_ext)),
        "forward_dynamics_crba": (lambda *x: dl.forward_dynamics_crba(model, *x), (q, qd, tau)),
        "rnea_derivatives": (lambda *x: np.stack(dl.rnea_derivatives(model, *x), axis=-3), (q, qd, qdd, f_ext)),
    }
    for name, (func, args) in cases.items():
        got = func(*args)
        assert got.shape == one_at_a_time(func, *args).shape, name
        assert relative_close(got, one_at_a_time(func, *args), 1e-12), name


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("batch", [(4,), (2, 2)])
def test_forward_dynamics_derivatives_of_a_batch(seed, batch):
    """A batch inverts each H by a stacked solve, a single state by Cholesky: they agree to cond(H) eps."""
    model, q, qd, _, tau, f_ext = tree_and_states(seed, batch=batch)
    got = np.stack(dl.aba_derivatives(model, q, qd, tau, f_ext), axis=-3)
    each = one_at_a_time(lambda *x: np.stack(dl.aba_derivatives(model, *x)), q, qd, tau, f_ext)
    cond = np.linalg.cond(dl.crba(model, q)).max()
    assert got.shape == each.shape
    assert relative_close(got, each, 100 * cond * np.finfo(float).eps)


@pytest.mark.parametrize("seed", range(3))
def test_kinematics_and_inertias_of_a_batch(seed):
    model, q, qd, qdd, *_ = tree_and_states(seed)
    kin = dl.forward_kinematics(model, q, qd, qdd)
    I, Ic = dl.world_inertias(model, kin), dl.composite_inertias(model, kin)
    art = dl.articulated_bodies(model, q, qd, qdd)
    for k in range(q.shape[0]):
        one = dl.forward_kinematics(model, q[k], qd[k], qdd[k])
        for field in ("R", "p", "v", "a"):
            assert relative_close(getattr(kin, field)[k], getattr(one, field), 1e-12), field
        assert all(relative_close(s[k], s1, 1e-12) for s, s1 in zip(kin.s, one.s))
        assert relative_close(I[k], dl.world_inertias(model, one), 1e-12)
        assert relative_close(Ic[k], dl.composite_inertias(model, one), 1e-12)
        art1 = dl.articulated_bodies(model, q[k], qd[k], qdd[k])
        assert relative_close(art.IA[k], art1.IA, 1e-12) and relative_close(art.pA[k], art1.pA, 1e-12)


def test_unbatched_parts_broadcast_against_the_batch():
    model, q, qd, qdd, tau, f_ext = tree_and_states(7)
    tau_batch = dl.rnea(model, q, qd[0], qdd[0], f_ext[0])  # one velocity for every configuration
    for k in range(q.shape[0]):
        assert relative_close(tau_batch[k], dl.rnea(model, q[k], qd[0], qdd[0], f_ext[0]), 1e-12)
    qdd_batch = dl.aba(model, q[0], qd, tau)  # one configuration, many velocities and forces
    assert qdd_batch.shape == qd.shape
    for k in range(qd.shape[0]):
        assert relative_close(qdd_batch[k], dl.aba(model, q[0], qd[k], tau[k]), 1e-12)
    tau_f = dl.rnea(model, q[0], qd[0], qdd[0], f_ext)  # a batch of external wrenches only
    assert tau_f.shape == (f_ext.shape[0], model.nv)
    assert relative_close(tau_f[3], dl.rnea(model, q[0], qd[0], qdd[0], f_ext[3]), 1e-12)
    qdd_f = dl.aba(model, q[0], qd[0], tau[0], f_ext)
    assert relative_close(qdd_f[2], dl.aba(model, q[0], qd[0], tau[0], f_ext[2]), 1e-12)


def test_a_batch_closes_the_loop_between_inverse_and_forward_dynamics():
    model, q, qd, qdd, *_ = tree_and_states(11, n_bodies=7, batch=(50,))
    assert relative_close(dl.aba(model, q, qd, dl.rnea(model, q, qd, qdd)), qdd, 1e-8)
    H = dl.crba(model, q)
    assert relative_close(np.einsum("bij,bj->bi", H, qdd) + dl.bias_forces(model, q, qd), dl.rnea(model, q, qd, qdd),
                          1e-10)


def test_batched_states_that_do_not_fit_are_explained():
    model, q, qd, qdd, tau, _ = tree_and_states(3)
    with pytest.raises(ValueError, match=r"leading \(batch\) axes must broadcast, got q \(5,\), qd \(4,\)"):
        dl.rnea(model, q, qd[:4], qdd)
    with pytest.raises(ValueError, match=r"qd must have shape \(nv,\) = .* or \(\.\.\., \d+\) for a batch"):
        dl.aba(model, q, qd[:, :-1], tau)
    with pytest.raises(ValueError, match=r"f_ext must have shape .* or \(\.\.\., n_bodies, 6\)"):
        dl.rnea(model, q, qd, qdd, np.zeros((5, model.n_bodies, 3)))
    bad = q.copy()
    quaternion = next(sl for j, sl in zip(model.joints, model.q_slices) if j.kind == "spherical")
    bad[2, quaternion] *= 2
    with pytest.raises(ValueError, match=r"q\[\.\.\., \d+:\] \(spherical joint quaternion\) must be a unit"):
        dl.forward_kinematics(model, bad)


def one_state_calls():
    """Every public function of (model, q, ...) that evaluates one state, called with a batch of five."""
    chain, mech = dl.planar_chain(3), dl.four_bar()
    q3, z3 = np.zeros((5, 3)), np.zeros(3)
    qm, zm, c = np.stack([mech.q0] * 5), np.zeros(mech.model.nv), mech.constraints
    n = dl.line_coordinates([3.0, 0.0, 0.0], [1.0, 0.0, 0.0])
    return {
        "articulated_mobility": lambda: dl.articulated_mobility(chain, q3, z3),
        "split_chain_dynamics": lambda: dl.split_chain_dynamics(chain, q3, z3, z3, 1),
        "mobility_spectrum": lambda: dl.mobility_spectrum(chain, q3),
        "impulse_propagation": lambda: dl.impulse_propagation(chain, q3, z3, n, 0.5),
        "contact_impulse": lambda: dl.contact_impulse(chain, q3, z3, n, 0.5, 2),
        "hybrid_dynamics": lambda: dl.hybrid_dynamics(chain, q3, z3, z3, z3, [True, False, True]),
        "joint_wrenches": lambda: dl.joint_wrenches(chain, q3, z3, z3),
        "rnea_vectors": lambda: dl.rnea_vectors(chain, q3, z3, z3),
        "rnea_body_frame": lambda: dl.rnea_body_frame(chain, q3, z3, z3),
        "aba_body_frame": lambda: dl.aba_body_frame(chain, q3, z3, z3),
        "body_jacobian": lambda: dl.body_jacobian(chain, q3, 0),
        "point_jacobian": lambda: dl.point_jacobian(chain, q3, 0, [1.0, 0, 0]),
        "difference": lambda: dl.difference(chain, q3, q3),
        "body_outlines": lambda: dl.body_outlines(chain, q3),
        "constraint_residual": lambda: dl.constraint_residual(mech.model, qm, c),
        "constraint_jacobian": lambda: dl.constraint_jacobian(mech.model, qm, c),
        "constraint_bias": lambda: dl.constraint_bias(mech.model, qm, zm, c),
        "constrained_forward_dynamics": lambda: dl.constrained_forward_dynamics(mech.model, qm, zm, zm, c),
        "constrained_inverse_dynamics": lambda: dl.constrained_inverse_dynamics(mech.model, qm, zm, zm, c,
                                                                                [True, False, False]),
        "dependent_motion": lambda: dl.dependent_motion(mech.model, qm, c, [0], [1.0]),
        "project_configuration": lambda: dl.project_configuration(mech.model, qm, c),
        "project_velocity": lambda: dl.project_velocity(mech.model, qm, zm, c),
        "stacked_system": lambda: dl.stacked_system(mech.model, qm, zm, zm, constraints=c),
        "stacked_forward_dynamics": lambda: dl.stacked_forward_dynamics(mech.model, qm, zm, zm, constraints=c),
    }


@pytest.mark.parametrize("name", sorted(one_state_calls()))
def test_functions_of_one_state_reject_a_batch_with_a_clear_message(name):
    with pytest.raises(ValueError, match=r"(q|q0) must have shape \(nq,\) = \(\d+,\), got \(5, \d+\)"):
        one_state_calls()[name]()


def test_symbolic_states_are_not_batched():
    sp = pytest.importorskip("sympy")
    model = dl.planar_chain(2)
    t = sp.symbols("t")
    with pytest.raises(ValueError, match="symbolic states cannot be batched"):
        dl.rnea(model, np.array([[t, 0], [0, t]], dtype=object), [0, 0], [0, 0])
    tau = dl.rnea(model, np.array([t, 0], dtype=object), [0, 0], [0, 0])  # one symbolic state still works
    at_zero = np.array([sp.N(x.subs(t, 0)) for x in tau], dtype=float)
    assert relative_close(at_zero, dl.rnea(model, [0.0, 0.0], [0, 0], [0, 0]), 1e-12)


@pytest.mark.parametrize("method", ["rk4", "semi-implicit-euler", "explicit-euler"])
def test_an_ensemble_simulates_like_its_members(method):
    model = dl.random_tree(4, 2, kinds=["revolute", "prismatic", "spherical", "free"])
    rng = np.random.default_rng(2)
    q0 = np.array([dl.random_configuration(model, rng) for _ in range(3)])
    qd0 = rng.standard_normal((3, model.nv))
    ensemble = dl.simulate(model, q0, qd0, 0.2, 0.01, method=method)
    assert ensemble.q.shape == (21, 3, model.nq) and ensemble.energy.shape == (21, 3)
    for k in range(3):
        one = dl.simulate(model, q0[k], qd0[k], 0.2, 0.01, method=method)
        assert relative_close(ensemble.q[:, k], one.q, 1e-12)
        assert relative_close(ensemble.qd[:, k], one.qd, 1e-12)
        assert relative_close(ensemble.energy[:, k], one.energy, 1e-12)


def test_an_ensemble_with_contacts_or_constraints_is_refused():
    mech = dl.four_bar()
    q0 = np.stack([mech.q0, mech.q0])
    with pytest.raises(ValueError, match="ensemble .* without constraints and contacts"):
        dl.simulate(mech.model, q0, np.zeros(mech.model.nv), 0.1, 0.01, constraints=mech.constraints)


def test_integrate_a_batch():
    model = dl.random_tree(5, 4, kinds=KINDS)
    rng = np.random.default_rng(4)
    q = np.array([dl.random_configuration(model, rng) for _ in range(4)])
    v = rng.standard_normal((4, model.nv))
    moved = dl.integrate(model, q, v, 0.3)
    for k in range(4):
        assert relative_close(moved[k], dl.integrate(model, q[k], v[k], 0.3), 1e-13)
    assert relative_close(dl.integrate(model, q, v[0], 0.3)[2], dl.integrate(model, q[2], v[0], 0.3), 1e-13)
