"""Joints: motion subspaces are the derivatives of the joint transforms; integration stays on the manifold."""

import numpy as np
import pytest
import sympy

import dynlib as dl

from conftest import assert_close, assert_exact

JOINTS = {
    "revolute": dl.revolute([0.3, -1.0, 0.5]),
    "prismatic": dl.prismatic([1.0, 2.0, -0.4]),
    "helical": dl.helical([0.2, 0.1, 1.0], pitch=0.35),
    "spherical": dl.spherical(),
    "translational": dl.translational(),
    "free": dl.free(),
    "fixed": dl.fixed(),
}


@pytest.fixture(params=list(JOINTS), ids=list(JOINTS))
def joint(request):
    return JOINTS[request.param]


def T_of(joint, qj):
    return dl.homogeneous(*joint.transform(qj))


def test_sizes(joint):
    assert (joint.nq, joint.nv) == dl.JOINT_KINDS[joint.kind]
    assert joint.S.shape == (6, joint.nv)
    assert joint.neutral().shape == (joint.nq,)


def test_motion_subspace_is_the_derivative_of_the_joint_transform(joint, rng):
    """hat(S e_k) = T^-1 dT along the k-th velocity direction (central differences)."""
    qj = joint.random_configuration(rng)
    T_inv = dl.homogeneous_inverse(T_of(joint, qj))
    h = 1e-6
    for k in range(joint.nv):
        e = np.zeros(joint.nv)
        e[k] = h
        dT = (T_of(joint, joint.integrate(qj, e)) - T_of(joint, joint.integrate(qj, -e))) / (2 * h)
        assert_close(dl.vee(T_inv @ dT), joint.S[:, k], rtol=1e-8)


@pytest.mark.parametrize("kind", ["revolute", "prismatic", "helical"])
def test_one_dof_subspace_is_exactly_the_derivative(kind):
    t, h = sympy.symbols("theta h", real=True)
    j = dl.Joint(kind, np.array([0, 0, 1], dtype=object), h if kind == "helical" else 0)
    T = dl.homogeneous(*j.transform(np.array([t], dtype=object)))
    body_twist = dl.vee(dl.homogeneous_inverse(T) @ np.vectorize(lambda e: sympy.diff(e, t))(T))
    assert_exact(body_twist, j.S[:, 0])


def test_spherical_subspace_is_exactly_the_derivative_through_eq_5():
    a, b, c = sympy.symbols("a b c", real=True)
    q = np.array([a, b, c, sympy.sqrt(1 - a**2 - b**2 - c**2)], dtype=object)
    j = dl.spherical()
    T = dl.homogeneous(*j.transform(q))
    for k in range(3):
        q_dot = dl.quaternion_rate_matrix(q)[:, k] / 2  # eq. 5 with Omega = e_k
        dT = sum(np.vectorize(lambda e, s=s: sympy.diff(e, s))(T) * q_dot[i] for i, s in enumerate((a, b, c)))
        assert_exact(dl.vee(dl.homogeneous_inverse(T) @ dT), j.S[:, k])


def test_integrate_and_difference_are_inverse(joint, rng):
    q0 = joint.random_configuration(rng)
    v = rng.normal(size=joint.nv)
    q1 = joint.integrate(q0, v, 0.3)
    assert_close(joint.difference(q0, q1), 0.3 * v, rtol=1e-9, scale=1.0)


def test_quaternions_stay_unit_over_many_steps(rng):
    for joint in (JOINTS["spherical"], JOINTS["free"]):
        q = joint.random_configuration(rng)
        for _ in range(1000):
            q = joint.integrate(q, rng.normal(size=joint.nv), 0.05)
        quat = q[-4:]
        assert abs(np.linalg.norm(quat) - 1) < 1e-12


def test_free_joint_position_rate_is_the_rotated_body_velocity(rng):
    j = JOINTS["free"]
    q, v = j.random_configuration(rng), rng.normal(size=6)
    h = 1e-6
    p_dot = (j.integrate(q, v, h)[:3] - j.integrate(q, v, -h)[:3]) / (2 * h)
    R, _ = j.transform(q)
    assert_close(p_dot, R @ v[:3], rtol=1e-8)


def test_joint_input_errors():
    with pytest.raises(ValueError, match="joint kind must be one of"):
        dl.Joint("ball")
    with pytest.raises(ValueError, match="revolute joint axis must be a finite non-zero 3-vector"):
        dl.revolute([0, 0, 0])
    with pytest.raises(ValueError, match="needs an axis"):
        dl.Joint("prismatic")
    with pytest.raises(ValueError, match="takes no axis"):
        dl.Joint("spherical", [0, 0, 1])
    with pytest.raises(ValueError, match="only helical joints have a pitch"):
        dl.Joint("revolute", [0, 0, 1], 0.2)
    with pytest.raises(ValueError, match=r"must have shape \(4,\), got \(3,\)"):
        dl.spherical().transform([0, 0, 1.0])
    with pytest.raises(ValueError, match="must be a unit quaternion"):
        dl.spherical().transform([0, 0, 0.5, 0.5])
    with pytest.raises(ValueError, match="free joint quaternion"):
        dl.free().transform([0, 0, 0, 0, 0, 0, 2.0])
    with pytest.raises(ValueError, match="must be finite"):
        dl.revolute().transform([np.nan])
