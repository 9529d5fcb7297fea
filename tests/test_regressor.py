"""The dynamics are linear in the inertial parameters: ``Y pi = rnea`` on random trees of every joint kind,
exactly with sympy on a planar arm, the energy regressor against the energies and the power balance, base
parameters numerically against their exact sympy form, and Pinocchio's regressor with its parameter order."""

import numpy as np
import pytest
import sympy as sp

import dynlib as dl

from conftest import TREES, assert_close, assert_exact, random_state

#: Pinocchio orders a body's rotational inertia (xx, xy, yy, xz, yz, zz); dynlib (xx, xy, xz, yy, yz, zz)
PINOCCHIO_ORDER = np.array([0, 1, 2, 3, 4, 5, 7, 6, 8, 9])


@pytest.mark.parametrize("n, seed, branching", TREES)
def test_regressor_times_parameters_is_inverse_dynamics_on_random_trees(n, seed, branching):
    model = dl.random_tree(n, seed, branching=branching, kinds=list(dl.JOINT_KINDS))
    rng = np.random.default_rng(seed + 300)
    pi = dl.inertial_parameters(model)
    for _ in range(3):
        q, qd, qdd = random_state(model, rng)
        Y = dl.joint_torque_regressor(model, q, qd, qdd)
        assert Y.shape == (model.nv, 10 * n)
        assert_close(Y @ pi, dl.rnea(model, q, qd, qdd), rtol=1e-12)


def test_regressor_does_not_read_the_inertias(rng):
    """Y depends on the tree and gravity only: another model with the same tree gives the same Y."""
    model = dl.random_tree(6, 8, branching=0.4, kinds=list(dl.JOINT_KINDS))
    heavier = dl.model_from_parameters(model, 3.0 * dl.inertial_parameters(model))
    q, qd, qdd = random_state(model, rng)
    assert np.array_equal(dl.joint_torque_regressor(model, q, qd, qdd), dl.joint_torque_regressor(heavier, q, qd, qdd))
    assert_close(dl.rnea(heavier, q, qd, qdd), 3.0 * dl.rnea(model, q, qd, qdd), rtol=1e-12)


def test_columns_of_a_body_vanish_in_the_rows_of_joints_that_do_not_carry_it(rng):
    model = dl.random_tree(8, 5, branching=0.7, kinds=list(dl.JOINT_KINDS))
    Y = dl.joint_torque_regressor(model, *random_state(model, rng))
    for i in range(model.n_bodies):
        carriers = model.ancestors(i)
        for j in range(model.n_bodies):
            block = Y[model.v_slices[j], 10 * i:10 * i + 10]
            if j not in carriers:
                assert not block.any(), (i, j)


def test_a_batch_of_states_gives_the_regressor_of_each(rng):
    model = dl.random_tree(5, 6, branching=0.3, kinds=list(dl.JOINT_KINDS))
    states = [random_state(model, rng) for _ in range(6)]
    Q, QD, QDD = (np.array(x).reshape((2, 3, -1)) for x in zip(*states))
    Y = dl.joint_torque_regressor(model, Q, QD, QDD)
    assert Y.shape == (2, 3, model.nv, 10 * model.n_bodies)
    for k, (q, qd, qdd) in enumerate(states):
        assert_close(Y.reshape(6, model.nv, -1)[k], dl.joint_torque_regressor(model, q, qd, qdd), rtol=1e-13)
    large = [np.repeat(x, 50, axis=0) for x in (Q.reshape(6, -1), QD.reshape(6, -1), QDD.reshape(6, -1))]
    assert_close(dl.joint_torque_regressor(model, *large)[::50], Y.reshape(6, model.nv, -1), rtol=1e-13)


def planar_arm_with_symbolic_parameters():
    """Two links turning about z, gravity -g y, every parameter a symbol; and those symbols."""
    l1, g = sp.symbols("ell1 g", positive=True)
    arm = dl.Model((-1, 0), (dl.revolute([0, 0, 1]), dl.revolute([0, 0, 1])),
                   np.array([np.eye(4), dl.homogeneous(np.eye(3), [l1, 0, 0])]),
                   np.array([dl.spatial_inertia(1, [0, 0, 0], sp.eye(3))] * 2), gravity=(0, -g, 0))
    names = [f"{name}_{i + 1}" for i in range(2) for name in dl.PARAMETER_NAMES]
    return arm, np.array(sp.symbols(names, real=True), dtype=object)


def test_regressor_is_exactly_inverse_dynamics_on_a_planar_arm_with_symbolic_parameters():
    arm, pi = planar_arm_with_symbolic_parameters()
    q, qd, qdd = (np.array(sp.symbols(f"{x}1:3", real=True), dtype=object) for x in ("q", "qd", "qdd"))
    Y = dl.joint_torque_regressor(arm, q, qd, qdd)
    general = dl.model_from_parameters(arm, pi)        # every inertial parameter a symbol
    assert_exact(Y @ pi, dl.rnea(general, q, qd, qdd))
    # the textbook torque of the first joint's own link, Izz qdd + g (mcx cos - mcy sin), read off Y
    assert_exact(Y[0, 9], qdd[0])
    assert_exact(Y[0, 1], sp.symbols("g", positive=True) * sp.cos(q[0]))


def test_energy_regressor_gives_the_energies(tree, rng):
    pi = dl.inertial_parameters(tree)
    q, qd, _ = random_state(tree, rng)
    kinetic, potential = dl.energy_regressor(tree, q, qd)
    scale = 1 + abs(dl.system_kinetic_energy(tree, q, qd)) + abs(dl.system_potential_energy(tree, q))
    assert abs(kinetic @ pi - dl.system_kinetic_energy(tree, q, qd)) <= 1e-12 * scale
    assert abs(potential @ pi - dl.system_potential_energy(tree, q)) <= 1e-12 * scale
    Q, QD = np.stack([q, q]), np.stack([qd, 2 * qd])
    both = dl.energy_regressor(tree, Q, QD)
    assert_close(both[0][1], 4 * kinetic, rtol=1e-12, scale=1.0)
    assert_close(both[1][0], potential, rtol=1e-12, scale=1.0)


def test_power_balance_exactly_the_time_derivative_of_the_energy_regressor_is_qd_times_y():
    """d/dt (kinetic + potential) = qd^T Y along any motion, parameter by parameter (exactly)."""
    arm, _ = planar_arm_with_symbolic_parameters()
    t = sp.Symbol("t", real=True)
    q = np.array([sp.Function("q1")(t), sp.Function("q2")(t)], dtype=object)
    qd = np.array([x.diff(t) for x in q], dtype=object)
    qdd = np.array([x.diff(t) for x in qd], dtype=object)
    kinetic, potential = dl.energy_regressor(arm, q, qd)
    power = qd @ dl.joint_torque_regressor(arm, q, qd, qdd)
    assert_exact(np.array([sp.diff(e, t) for e in kinetic + potential], dtype=object), power)


def test_parameters_round_trip_and_rebuild_the_same_model(tree):
    pi = dl.inertial_parameters(tree)
    assert pi.shape == (10 * tree.n_bodies,)
    again = dl.model_from_parameters(tree, pi.reshape(-1, 10))
    assert np.array_equal(again.inertias, tree.inertias)
    assert again.parent == tree.parent and again.names == tree.names
    m, c = tree.mass, tree.com
    assert_close(pi.reshape(-1, 10)[:, 1:4], m[:, None] * c, rtol=1e-14, scale=1.0)


def test_exact_parameters_of_a_symbolic_model():
    rod = dl.planar_chain(1, length=sp.Symbol("ell", positive=True), mass=sp.Symbol("m", positive=True))
    pi = dl.inertial_parameters(rod)
    ell, m = sp.symbols("ell m", positive=True)
    assert_exact(pi[[0, 1, 2, 3]], [m, m * ell / 2, 0, 0])


def test_bad_parameters_are_refused_with_the_body_named():
    arm = dl.planar_chain(3)
    pi = dl.inertial_parameters(arm)
    with pytest.raises(ValueError, match=r"shape \(30,\) or \(3, 10\)"):
        dl.model_from_parameters(arm, pi[:-1])
    with pytest.raises(ValueError, match="finite"):
        dl.model_from_parameters(arm, np.where(np.arange(30) == 4, np.nan, pi))
    wrong = pi.copy()
    wrong[10] = -1.0                                  # body 1 with a negative mass
    with pytest.raises(ValueError, match=r"parameters of body 1 \(body1, entries 10 to 19\).*mass"):
        dl.model_from_parameters(arm, wrong)
    flat = pi.copy()
    flat[29] = 0.01                                    # body 2's I_zz: impossible for its mass and length
    with pytest.raises(ValueError, match="body 2"):
        dl.model_from_parameters(arm, flat)
    assert dl.model_from_parameters(arm, flat, strict_inertias=False).strict_inertias is False
    with pytest.raises(TypeError, match="dynlib Model"):
        dl.inertial_parameters("arm")


def test_bad_states_are_refused():
    arm = dl.planar_chain(2)
    with pytest.raises(ValueError, match="q must have shape"):
        dl.joint_torque_regressor(arm, [0.0], [0.0, 0.0], [0.0, 0.0])
    with pytest.raises(ValueError, match="qdd"):
        dl.joint_torque_regressor(arm, [0.0, 0.0], [0.0, 0.0], [0.0, np.inf])
    with pytest.raises(ValueError, match="qd"):
        dl.energy_regressor(arm, [0.0, 0.0], [0.0, 0.0, 1.0])
    ball = dl.random_tree(2, 0, kinds=["spherical"])
    with pytest.raises(ValueError, match="quaternion"):
        dl.joint_torque_regressor(ball, np.ones(ball.nq), np.zeros(ball.nv), np.zeros(ball.nv))


# --------------------------------------------------------------------------------- base parameters


def test_base_parameters_of_the_planar_arm_exactly():
    """The classic six: m c_x + l1 m_2, m c_y and I_zz + l1^2 m_2 of link 1; m c_x, m c_y, I_zz of link 2."""
    arm, pi = planar_arm_with_symbolic_parameters()
    l1 = sp.Symbol("ell1", positive=True)
    base = dl.base_parameters(arm)
    names = {str(x): x for x in pi}
    expected = [names["mcx_1"] + l1 * names["m_2"], names["mcy_1"], names["Izz_1"] + l1**2 * names["m_2"],
                names["mcx_2"], names["mcy_2"], names["Izz_2"]]
    assert_exact(base.of(pi), expected)


def spatial_rp_chain():
    """A turntable (revolute about z), a slider along its x axis, a wrist about the slider's y: round numbers."""
    joints = (dl.revolute([0, 0, 1]), dl.prismatic([1, 0, 0]), dl.revolute([0, 1, 0]))
    placements = np.array([np.eye(4), dl.homogeneous(np.eye(3), [0, 0, 0.5]), dl.homogeneous(np.eye(3), [0.25, 0, 0])])
    inertias = np.array([dl.spatial_inertia(m, c, np.diag(d)) for m, c, d in [
        (2.0, [0.1, 0.2, 0.3], [0.3, 0.2, 0.4]), (1.0, [0.5, 0.0, 0.1], [0.1, 0.2, 0.25]),
        (0.5, [0.0, 0.0, 0.2], [0.05, 0.04, 0.06])]])
    return dl.Model((-1, 0, 1), joints, placements, inertias, gravity=(0.0, 0.0, -9.81))


@pytest.mark.parametrize("model", [dl.planar_chain(3), spatial_rp_chain()], ids=["planar 3R", "spatial RPR"])
def test_numeric_base_parameters_equal_the_exact_ones(model):
    exact = dl.base_parameters(model.exact())
    numeric = dl.base_parameters(model)
    assert np.array_equal(exact.independent, numeric.independent)
    assert_close(numeric.beta, np.array(exact.beta, dtype=float), rtol=1e-9, scale=1.0)


def test_base_regressor_reproduces_the_torques_on_other_states(rng):
    model = dl.random_tree(6, 31, branching=0.5, kinds=list(dl.JOINT_KINDS))
    base = dl.base_parameters(model)
    pi = dl.inertial_parameters(model)
    random_parameters = rng.normal(size=pi.shape)     # the identity holds for any parameters, not just these
    for _ in range(3):
        Y = dl.joint_torque_regressor(model, *random_state(model, rng))
        Y_b = base.regressor(Y)
        assert Y_b.shape[-1] == len(base.independent) < 10 * model.n_bodies
        assert_close(Y_b @ base.of(pi), Y @ pi, rtol=1e-9)
        assert_close(Y_b @ base.of(random_parameters), Y @ random_parameters, rtol=1e-9)
        assert np.linalg.matrix_rank(np.vstack([Y_b, Y_b])) <= len(base.independent)


def test_a_combination_outside_the_base_parameters_changes_no_torque(rng):
    """Every null vector of the base map (pi with base.of(pi) = 0) gives Y pi = 0."""
    model = dl.planar_chain(3)
    base = dl.base_parameters(model)
    K = np.zeros((len(base.independent), 30))
    K[:, base.independent] = np.eye(len(base.independent))
    K[:, base.dependent] = base.beta
    null = np.linalg.svd(K)[2][len(base.independent):]
    Y = dl.joint_torque_regressor(model, *random_state(model, rng))
    assert np.abs(Y @ null.T).max() < 1e-12 * np.abs(Y).max()


def test_base_parameters_refuse_bad_options():
    arm = dl.planar_chain(2)
    with pytest.raises(ValueError, match="samples"):
        dl.base_parameters(arm, samples=0)
    with pytest.raises(ValueError, match="tolerance"):
        dl.base_parameters(arm, tolerance=2.0)
    with pytest.raises(TypeError, match="rng"):
        dl.base_parameters(arm, rng="seed")
    with pytest.raises(ValueError, match="ten per body"):
        dl.base_parameters(arm).of(np.zeros(19))


# ------------------------------------------------------------------------------------- Pinocchio


@pytest.mark.parametrize("seed, n, branching", [(0, 1, 0.0), (1, 4, 0.0), (2, 7, 0.5), (3, 9, 0.8)])
def test_regressor_agrees_with_pinocchio_with_the_parameter_order_mapped(seed, n, branching):
    import pinocchio_bridge as bridge  # Pinocchio is the oracle: a missing one fails the test, never skips it

    pin = bridge.pin
    kinds = ["revolute", "prismatic", "helical", "spherical", "translational", "free"]
    model = dl.random_tree(n, seed + 40, branching=branching, kinds=kinds)
    pm = bridge.to_pinocchio(model)
    pd = pm.createData()
    order = np.concatenate([10 * i + PINOCCHIO_ORDER for i in range(n)])
    rng = np.random.default_rng(seed)
    for i in range(n):                                   # the same parameters, in Pinocchio's order
        assert_close(pm.inertias[i + 1].toDynamicParameters(), dl.inertial_parameters(model)[order][10 * i:10 * i + 10],
                     rtol=1e-12)
    for _ in range(3):
        q, qd, qdd = random_state(model, rng)
        theirs = pin.computeJointTorqueRegressor(pm, pd, q, qd, qdd)
        assert_close(dl.joint_torque_regressor(model, q, qd, qdd)[:, order], theirs, rtol=1e-11)
