"""Gravity as a wrench: its form, its place in inverse dynamics, and its power."""

import numpy as np

import dynlib as dl

from conftest import assert_close, random_state


def test_gravity_wrench_is_the_weight_through_the_centre_of_mass(tree, rng):
    q = dl.random_configuration(tree, rng)
    kin = dl.forward_kinematics(tree, q)
    f = dl.gravity_wrenches(tree, kin)
    com = dl.centres_of_mass(tree, kin)
    for i in range(tree.n_bodies):
        weight = tree.mass[i] * tree.gravity
        assert_close(f[i], np.r_[weight, np.cross(com[i], weight)])


def test_gravity_is_the_external_wrench_of_a_gravity_free_model(tree, rng):
    q, qd, qdd = random_state(tree, rng)
    no_gravity = dl.Model(tree.parent, tree.joints, tree.placements, tree.inertias, (0, 0, 0))
    f_g = dl.gravity_wrenches(tree, dl.forward_kinematics(tree, q))
    assert_close(dl.rnea(no_gravity, q, qd, qdd, f_ext=f_g), dl.rnea(tree, q, qd, qdd))


def test_power_of_gravity_is_minus_the_rate_of_potential_energy(tree, rng):
    q, qd, _ = random_state(tree, rng)
    kin = dl.forward_kinematics(tree, q, qd)
    power = sum(kin.v[i] @ f for i, f in enumerate(dl.gravity_wrenches(tree, kin)))
    h = 1e-6
    dV = (dl.system_potential_energy(tree, dl.integrate(tree, q, qd, h))
          - dl.system_potential_energy(tree, dl.integrate(tree, q, qd, -h))) / (2 * h)
    assert_close(power, -dV, rtol=1e-6, scale=np.abs(tree.mass).sum() * 9.81 * (1 + np.abs(qd).max()))
