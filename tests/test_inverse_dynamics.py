"""Inverse dynamics in three forms (spatial RNEA, joint wrenches, the classic 3-vector recursion)
and the composite inertias of the mass matrix, checked against each other, sympy and Pinocchio."""

import numpy as np
import pytest
import sympy as sp

import dynlib as dl
from dynlib.algorithms.inverse_dynamics import joint_wrenches, rnea_vectors
from dynlib.algorithms.mass_matrix import composite_inertias

from conftest import assert_close, assert_exact, random_state

#: (n_bodies, seed, branching): revolute/prismatic chains and trees
AXIAL_TREES = [(1, 0, 0.0), (3, 1, 0.0), (6, 2, 0.0), (7, 3, 0.5), (10, 4, 0.9)]


def random_gravity(rng):
    return rng.normal(size=3) * 5


@pytest.mark.parametrize("n, seed, branching", AXIAL_TREES)
def test_vector_form_equals_spatial_rnea_on_random_trees(n, seed, branching):
    rng = np.random.default_rng(seed)
    model = dl.random_tree(n, seed, kinds=["revolute", "prismatic"], branching=branching,
                           gravity=random_gravity(rng))
    for _ in range(3):
        q, qd, qdd = random_state(model, rng)
        assert_close(rnea_vectors(model, q, qd, qdd), dl.rnea(model, q, qd, qdd))


def test_vector_form_is_exactly_the_lagrangian_of_a_polar_arm():
    """A revolute joint then a prismatic one along the arm: the classic r-theta manipulator.

    A small disc (mass m, moment J about z) at distance r on an arm whose hub (moment J0) turns
    about z, gravity -g y:
    tau = (m r^2 + J + J0) thdd + 2 m r rd thd + m g r cos th,   f = m rdd - m r thd^2 + m g sin th.
    """
    m, m0, g, J, J0 = sp.symbols("m m_0 g J J_0", positive=True)
    th, r, thd, rd, thdd, rdd = sp.symbols("theta r thetadot rdot thetaddot rddot", real=True)
    placements = np.array([np.eye(4), np.eye(4)])
    hub = dl.spatial_inertia(m0, [0, 0, 0], np.diag([J0 / 2, J0 / 2, J0]))   # centred on the axis
    slider = dl.spatial_inertia(m, [0, 0, 0], np.diag([J / 2, J / 2, J]))    # a small disc, J about z
    model = dl.Model((-1, 0), (dl.revolute([0, 0, 1]), dl.prismatic([1, 0, 0])), placements,
                     np.array([hub, slider]), gravity=(0, -g, 0))
    tau = rnea_vectors(model, [th, r], [thd, rd], [thdd, rdd])
    expected = [(m * r**2 + J + J0) * thdd + 2 * m * r * rd * thd + m * g * r * sp.cos(th),
                m * rdd - m * r * thd**2 + m * g * sp.sin(th)]
    assert_exact(tau, expected)
    assert_exact(dl.rnea(model, [th, r], [thd, rd], [thdd, rdd]), expected)


def test_vector_form_exact_for_the_double_pendulum():
    m1, m2, l1, l2, g = sp.symbols("m1 m2 l1 l2 g", positive=True)
    model = dl.double_pendulum((m1, m2), (l1, l2), gravity=(0, -g, 0))
    q, qd, qdd = (np.array(sp.symbols(f"{name}1:3", real=True), dtype=object) for name in ("q", "qd", "qdd"))
    assert_exact(rnea_vectors(model, q, qd, qdd), dl.rnea(model, q, qd, qdd))


@pytest.mark.parametrize("kind", ["spherical", "helical", "free", "translational"])
def test_vector_form_rejects_other_joints_by_name(kind):
    model = dl.random_tree(3, 1, kinds=["revolute"])
    joints = model.joints[:2] + ((dl.Joint(kind, [0, 0, 1]) if kind == "helical" else dl.Joint(kind)),)
    model = dl.Model(model.parent, joints, model.placements, model.inertias)
    q, qd, qdd = random_state(model, np.random.default_rng(0))
    with pytest.raises(ValueError, match=f"revolute and prismatic joints only; joint 2 is '{kind}'"):
        rnea_vectors(model, q, qd, qdd)


def test_joint_wrenches_project_to_rnea(tree, rng):
    q, qd, qdd = random_state(tree, rng)
    f_ext = rng.normal(size=(tree.n_bodies, 6))
    f = joint_wrenches(tree, q, qd, qdd, f_ext)
    kin = dl.forward_kinematics(tree, q)
    tau = np.concatenate([kin.s[i].T @ f[i] for i in range(tree.n_bodies)])
    assert_close(tau, dl.rnea(tree, q, qd, qdd, f_ext))


def test_joint_wrench_is_the_momentum_rate_of_the_subtree_minus_its_loads(tree, rng):
    """f_i = d/dt (momentum of the subtree of i) - weights - external wrenches on it (Newton for the subtree)."""
    q, qd, qdd = random_state(tree, rng)
    f_ext = rng.normal(size=(tree.n_bodies, 6))
    h = 1e-5

    def momenta(t):  # each body's momentum along q(t) = q + qd t + qdd t^2 / 2 (for quaternion joints the
        # velocity qd + qdd t is off by O(t^2), which the central difference cancels)
        qt, qdt = dl.integrate(tree, q, qd * t + qdd * t**2 / 2), qd + qdd * t
        kin = dl.forward_kinematics(tree, qt, qdt)
        return np.array([I @ v for I, v in zip(dl.world_inertias(tree, kin), kin.v)])

    rate = (momenta(h) - momenta(-h)) / (2 * h)
    weight = dl.gravity_wrenches(tree, dl.forward_kinematics(tree, q))
    f = joint_wrenches(tree, q, qd, qdd, f_ext)
    for i in range(tree.n_bodies):
        sub = tree.subtree(i)
        expected = rate[sub].sum(axis=0) - weight[sub].sum(axis=0) - f_ext[sub].sum(axis=0)
        assert_close(f[i], expected, rtol=1e-6, scale=np.abs(rate).max() + np.abs(weight).max())


def test_joint_wrenches_of_a_chain_at_rest_carry_the_weight_outboard():
    model = dl.planar_chain(4, mass=2.0)
    f = joint_wrenches(model, [0.3, -0.2, 0.5, 0.1], np.zeros(4), np.zeros(4))
    assert_close(f[:, :3], np.array([[0, 9.81 * 2.0 * k, 0] for k in (4, 3, 2, 1)]))


def test_joint_wrenches_against_pinocchio():
    import pinocchio_bridge as pin_bridge

    pin = pin_bridge.pin
    model = dl.random_tree(9, 7, kinds=["revolute", "prismatic", "spherical", "helical"], branching=0.5)
    pm = pin_bridge.to_pinocchio(model)
    data = pm.createData()
    q, qd, qdd = random_state(model, np.random.default_rng(7))
    pin.rnea(pm, data, q, qd, qdd)
    kin = dl.forward_kinematics(model, q)
    f = joint_wrenches(model, q, qd, qdd)
    for i in range(model.n_bodies):
        X_i0_star = dl.inverse_transform(dl.force_transform(kin.R[i], kin.p[i]))   # world -> body i, forces
        assert_close(X_i0_star @ f[i], data.f[i + 1].vector)


def test_vector_form_against_pinocchio():
    import pinocchio_bridge as pin_bridge

    pin = pin_bridge.pin
    model = dl.random_tree(8, 11, kinds=["revolute", "prismatic"], branching=0.4)
    pm = pin_bridge.to_pinocchio(model)
    q, qd, qdd = random_state(model, np.random.default_rng(11))
    assert_close(rnea_vectors(model, q, qd, qdd), pin.rnea(pm, pm.createData(), q, qd, qdd))


def test_composite_inertias_are_subtree_sums(tree, rng):
    kin = dl.forward_kinematics(tree, dl.random_configuration(tree, rng))
    I, Ic = dl.world_inertias(tree, kin), composite_inertias(tree, kin)
    for i in range(tree.n_bodies):
        assert_close(Ic[i], I[tree.subtree(i)].sum(axis=0))


def test_unit_acceleration_loads_are_composite_inertias_times_the_axis(tree, rng):
    """With qd = 0, no gravity and qdd = e_j, joint i carries Ic_j s_j on the path to the base,
    Ic_i s_j inside the subtree of j, and nothing elsewhere: the derivation of the CRBA."""
    tree = dl.Model(tree.parent, tree.joints, tree.placements, tree.inertias, gravity=(0, 0, 0))
    q, zero = dl.random_configuration(tree, rng), np.zeros(tree.nv)
    kin = dl.forward_kinematics(tree, q)
    Ic = composite_inertias(tree, kin)
    for j in range(tree.n_bodies):
        for col in range(kin.s[j].shape[1]):
            qdd = zero.copy()
            qdd[tree.v_slices[j].start + col] = 1.0
            f = joint_wrenches(tree, q, zero, qdd)
            s_j = kin.s[j][:, col]
            for i in range(tree.n_bodies):
                if i in tree.ancestors(j):
                    expected = Ic[j] @ s_j
                elif j in tree.ancestors(i):
                    expected = Ic[i] @ s_j
                else:
                    expected = np.zeros(6)
                assert_close(f[i], expected, scale=np.abs(Ic[0]).max())


def test_joint_wrenches_and_composite_inertias_exact_with_symbols():
    m, L, g, th = sp.symbols("m L g theta", positive=True)
    model = dl.planar_chain(2, length=L, mass=m, gravity=(0, -g, 0))
    f = joint_wrenches(model, [th, 0], [0, 0], [0, 0])
    assert_exact(f[0][:3], [0, 2 * m * g, 0])
    assert_exact(f[0][5], 2 * m * g * L * sp.cos(th))             # weights at L/2 and 3L/2 along the arm
    Ic = composite_inertias(model, dl.forward_kinematics(model, [th, 0]))
    assert_exact(Ic[0][5, 5], m * L**2 / 3 + m * L**2 / 12 + m * (3 * L / 2) ** 2)
