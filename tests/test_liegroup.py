"""SE(3), Ad, ad, ad* and exp/log, and their identities with the Plücker operators."""

import numpy as np
import pytest
import sympy

import dynlib as dl

from conftest import assert_close, assert_exact


def random_T(rng):
    return dl.homogeneous(dl.random_rotation(rng), rng.normal(size=3))


def test_Ad_is_conjugation_by_T(rng):
    T, V = random_T(rng), rng.normal(size=6)
    assert_close(dl.Ad(T) @ V, dl.vee(T @ dl.hat(V) @ dl.homogeneous_inverse(T)))


def test_Ad_is_the_plucker_motion_transform_and_a_homomorphism(rng):
    T1, T2 = random_T(rng), random_T(rng)
    R, p = dl.rotation_translation(T1)
    assert_close(dl.Ad(T1), dl.motion_transform(R, p))
    assert_close(dl.Ad(T1 @ T2), dl.Ad(T1) @ dl.Ad(T2))
    assert_close(dl.Ad(dl.homogeneous_inverse(T1)), dl.inverse_transform(dl.Ad(T1)))
    assert_close(dl.homogeneous_inverse(T1) @ T1, np.eye(4))


def test_Ad_in_kims_angular_first_order(rng):
    """Kim (2012) eq. 7: Ad_T = [[R, 0], [[p]R, R]] for angular-first vectors."""
    T = random_T(rng)
    R, p = dl.rotation_translation(T)
    P = dl.angular_first_permutation()
    kim = np.block([[R, np.zeros((3, 3))], [dl.skew(p) @ R, R]])
    assert_close(P @ dl.Ad(T) @ P, kim)


def test_Ad_dual_transforms_wrenches_against_twists(rng):
    """Kim (2012) eqs. 8, 13: F_b = Ad*_T F_a keeps power invariant when V_a = Ad_T V_b."""
    T, V_b, F_a = random_T(rng), rng.normal(size=6), rng.normal(size=6)
    R, p = dl.rotation_translation(T)
    assert_close(dl.Ad_dual(T), dl.inverse_transform(dl.force_transform(R, p)))
    assert np.isclose((dl.Ad(T) @ V_b) @ F_a, V_b @ (dl.Ad_dual(T) @ F_a), rtol=1e-12)


def test_ad_is_the_lie_bracket_and_equals_crm(rng):
    V, W = rng.normal(size=(2, 6))
    bracket = dl.vee(dl.hat(V) @ dl.hat(W) - dl.hat(W) @ dl.hat(V))
    assert_close(dl.ad(V) @ W, bracket)
    assert_close(dl.ad(V), dl.crm(V))
    assert_close(dl.ad_dual(V), -dl.crf(V))


def test_ad_is_the_derivative_of_Ad(rng):
    """d/de Ad(T exp(e V)) at e = 0 is Ad(T) ad(V) (Kim Lemma 1)."""
    T, V = random_T(rng), rng.normal(size=6)
    h = 1e-6
    derivative = (dl.Ad(T @ dl.exp_se3(h * V)) - dl.Ad(T @ dl.exp_se3(-h * V))) / (2 * h)
    assert_close(derivative, dl.Ad(T) @ dl.ad(V), rtol=1e-8)


def test_kim_rigid_body_equation_equals_featherstones(rng):
    """F = I dV - ad*_V I V (Kim eq. 31) equals f = I a + v x* I v (Lecture 4)."""
    I, V, dV = dl.random_inertia(rng), rng.normal(size=6), rng.normal(size=6)
    assert_close(I @ dV - dl.ad_dual(V) @ I @ V, I @ dV + dl.crf(V) @ I @ V)


def test_body_and_world_twists_of_a_moving_frame(rng):
    """V_body = T^-1 dT/dt, v_world = dT/dt T^-1, and v_world = Ad_T V_body (Kim eq. 9)."""
    T, V = random_T(rng), rng.normal(size=6)
    h = 1e-6
    dT = (T @ dl.exp_se3(h * V) - T @ dl.exp_se3(-h * V)) / (2 * h)
    assert_close(dl.vee(dl.homogeneous_inverse(T) @ dT), V, rtol=1e-8)
    assert_close(dl.vee(dT @ dl.homogeneous_inverse(T)), dl.Ad(T) @ V, rtol=1e-8)


@pytest.mark.parametrize("angle", [0.0, 1e-9, 1e-4, 0.7, 2.0, np.pi - 1e-6, np.pi])
def test_so3_exp_log_round_trip(rng, angle):
    axis = dl.unit_axis(rng.normal(size=3))
    w = angle * axis
    R = dl.exp_so3(w)
    assert_close(R, dl.rotation_about_axis(axis, angle), rtol=1e-12)
    assert_close(R.T @ R, np.eye(3), rtol=1e-12)
    w_back = dl.log_so3(R)
    assert_close(dl.exp_so3(w_back), R, rtol=1e-9)
    if angle < np.pi - 1e-3:
        assert_close(w_back, w, rtol=1e-9)


@pytest.mark.parametrize("angle", [0.0, 1e-8, 0.3, 3.0])
def test_se3_exp_log_round_trip(rng, angle):
    V = np.concatenate([rng.normal(size=3), angle * dl.unit_axis(rng.normal(size=3))])
    T = dl.exp_se3(V)
    assert_close(dl.log_se3(T), V, rtol=1e-9)
    assert_close(dl.exp_se3(dl.log_se3(T)), T, rtol=1e-12)


def test_exp_se3_follows_a_constant_twist(rng):
    """dT/dt = T hat(V) integrated by small steps reaches exp_se3(V)."""
    V = rng.normal(size=6)
    T, steps = np.eye(4), 2000
    for _ in range(steps):
        T = T @ (np.eye(4) + dl.hat(V) / steps + dl.hat(V) @ dl.hat(V) / (2 * steps**2))
    assert_close(T, dl.exp_se3(V), rtol=1e-5)


def test_symbolic_exp_is_exact():
    theta = sympy.Symbol("theta", positive=True)
    R = dl.exp_so3(np.array([0, 0, theta], dtype=object))
    assert_exact(R, dl.rotation_about_axis([0, 0, 1], theta))
    c, s = sympy.Rational(3, 5), sympy.Rational(4, 5)
    R = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]], dtype=object)
    assert_exact(dl.log_so3(R), np.array([0, 0, sympy.acos(c)], dtype=object))
    x = sympy.Symbol("x", real=True)
    T = dl.exp_se3(np.array([x, 0, 0, 0, 0, 0], dtype=object))
    assert_exact(T, dl.homogeneous(np.eye(3, dtype=int), np.array([x, 0, 0], dtype=object)))


def test_bad_shapes_are_rejected():
    with pytest.raises(ValueError, match=r"T must have shape \(4, 4\)"):
        dl.Ad(np.eye(3))
    with pytest.raises(ValueError, match=r"V must have shape \(6,\)"):
        dl.hat(np.zeros(3))
    with pytest.raises(ValueError, match=r"R must have shape \(3, 3\)"):
        dl.log_so3(np.eye(4))
