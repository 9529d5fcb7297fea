"""The worked example of Alexiou (2023) §3, eqs. 30-40, reproduced exactly with sympy.

Each printed quantity is compared with what dynlib computes; where the note prints a wrong
value, the test asserts both the correct value and that the printed one differs (see the
book's errata page).
"""

import numpy as np
import pytest
import sympy as sp

import dynlib as dl

from conftest import assert_exact

m, L = sp.Symbol("m", positive=True), sp.Symbol("L", positive=True)
w1, w2, eps = sp.symbols("thetadot1 thetadot2 epsilon")
speed = 2 * w1 + w2


@pytest.fixture(scope="module")
def example():
    model = dl.alexiou_two_link(m, L)
    qd = np.array([w1, w2], dtype=object)
    n = dl.from_planar(np.array([0, 1, 2 * L], dtype=object))  # eq. 30
    kin = dl.forward_kinematics(model, [0, 0], qd)
    return model, kin, n, dl.impulse_propagation(model, [0, 0], qd, n, eps)


def planar(M):
    return dl.planar_matrix(M)


def test_eq_30_contact_line_is_the_vertical_line_through_the_tip():
    assert_exact(dl.planar_components(dl.line_coordinates(np.array([2 * L, 0, 0], dtype=object), [0, 1, 0])),
                 [0, 1, 2 * L])


def test_eq_31_32_twists(example):
    _, kin, _, _ = example
    assert_exact(dl.planar_components(kin.s[1][:, 0]), [0, -L, 1])
    assert_exact(dl.planar_components(kin.v[1]), [0, -L * w2, w1 + w2])


def test_eq_33_spatial_inertias_with_the_missing_square_restored(example):
    model, kin, _, _ = example
    I1, I2 = (planar(I) for I in dl.world_inertias(model, kin))
    assert_exact(I1, [[m, 0, 0], [0, m, m * L / 2], [0, m * L / 2, m * L**2 / 3]])
    assert_exact(I2, [[m, 0, 0], [0, m, 3 * m * L / 2], [0, 3 * m * L / 2, 7 * m * L**2 / 3]])
    printed = sp.Rational(7, 3) * m * L  # erratum: eq. 33 prints 7/3 m L for the moment of inertia
    assert sp.simplify(I2[2, 2] - printed) != 0


def test_eq_34_impact_speed(example):
    _, _, _, res = example
    assert sp.simplify(res.v_impact - L * speed) == 0


def test_eq_35_articulated_mobilities_are_the_inverses_printed_as_Lambda(example):
    model, _, _, _ = example
    mob = dl.articulated_mobility(model, [0, 0])
    assert_exact(planar(mob.Lambda_inv[0]), [[0, 0, 0], [0, 0, 0], [0, 0, 3 / (m * L**2)]])
    expected = [[0, 0, 0], [0, 96 / (7 * m), -66 / (7 * m * L)], [0, -66 / (7 * m * L), 48 / (7 * m * L**2)]]
    assert_exact(planar(mob.Lambda_inv[1]), expected)
    # erratum: the transcribed entry (3, 3) of eq. 35 reads 7 m L^2 / (7 m L^2) = 1
    assert sp.simplify(planar(mob.Lambda_inv[1])[2, 2] - 1) != 0


def test_eq_36_impulse_magnitude(example):
    _, _, _, res = example
    assert sp.simplify(res.J - (eps + 1) * 7 * m / 24 * L * speed) == 0


def test_eq_37_propagation_matrices(example):
    _, _, _, res = example
    assert_exact(planar(res.Phi[0]), [[1, 0, 0], [0, sp.Rational(-5, 7), 3 / (7 * L)], [0, 0, 0]])
    assert_exact(planar(res.Phi[1]), [[1, 0, 0], [0, sp.Rational(10, 7), -6 / (7 * L)],
                                      [0, 10 * L / 7, sp.Rational(-6, 7)]])


def test_eq_38_39_joint_and_twist_jumps(example):
    _, _, _, res = example
    assert_exact(res.dqd, [(eps + 1) * speed / 4, -(eps + 1) * sp.Rational(3, 2) * speed])
    assert_exact(dl.planar_components(res.dv[0]), [0, 0, (eps + 1) * speed / 4])
    dv2 = [0, (eps + 1) * 3 * L / 2 * speed, -(eps + 1) * sp.Rational(5, 4) * speed]
    assert_exact(dl.planar_components(res.dv[1]), dv2)


def test_eq_40_bounce_speed_obeys_the_law_of_contact(example):
    _, _, _, res = example
    assert sp.simplify(res.v_bounce + eps * L * speed) == 0


def test_joint_space_check_of_the_example(example):
    model, _, n, res = example
    H = sp.Matrix(dl.crba(model, [0, 0]).tolist())
    J2 = sp.Matrix(dl.body_jacobian(model, [0, 0], 1).tolist())
    assert_exact(np.array((-H.inv() * J2.T * sp.Matrix(n) * res.J).T.tolist()[0]), res.dqd)
