"""Input validation found missing by the fuzz campaign (tools/fuzz.py): one regression test per fix.

Each call below used to return NaN or infinity, hang, or raise an undocumented exception
(AttributeError, OverflowError, LinAlgError, or Python's own TypeError naming no argument);
now it raises ValueError or TypeError naming the argument, what was given and what was expected.
"""

import warnings

import numpy as np
import pytest

import dynlib as dl

CHAIN = dl.planar_chain(2)
Z2 = np.zeros(2)
URDF = """<robot name="r"><link name="base"/>
  <joint name="j" type="revolute"><parent link="base"/><child link="arm"/><axis xyz="0 0 1"/></joint>
  <link name="arm"><inertial><mass value="1"/>
    <inertia ixx="IXX" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link></robot>"""


@pytest.mark.parametrize(
    "call",
    [
        lambda m: dl.rnea(m, Z2, Z2, Z2),
        lambda m: dl.crba(m, Z2),
        lambda m: dl.aba(m, Z2, Z2, Z2),
        lambda m: dl.hybrid_dynamics(m, Z2, Z2, Z2, Z2, [True, False]),
        lambda m: dl.body_jacobian(m, Z2, 0),
        lambda m: dl.articulated_mobility(m, Z2),
        lambda m: dl.check_external_forces(m, None),
        lambda m: dl.system_energy(m, Z2, Z2),
    ],
    ids=["rnea", "crba", "aba", "hybrid_dynamics", "body_jacobian", "articulated_mobility",
         "check_external_forces", "system_energy"],
)
@pytest.mark.parametrize("model", [None, "chain", dl.revolute()], ids=["None", "str", "Joint"])
def test_a_model_that_is_not_a_model(call, model):
    # was AttributeError: 'NoneType' object has no attribute 'nq' (or 'n_bodies', 'is_chain')
    with pytest.raises(TypeError, match="model must be a dynlib Model, got"):
        call(model)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_external_forces_must_be_finite(bad):
    f_ext = np.zeros((2, 6))
    f_ext[1, 3] = bad
    # was: NaN or inf joint forces and accelerations
    for call in (dl.rnea, dl.aba, dl.articulated_mobility):
        with pytest.raises(ValueError, match="f_ext must be finite"):
            call(CHAIN, Z2, Z2, Z2, f_ext=f_ext)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda x: dl.rnea(CHAIN, Z2, x, Z2), "qd"),
        (lambda x: dl.aba(CHAIN, x, Z2, Z2), "q"),
        (lambda x: dl.forward_kinematics(CHAIN, Z2, x, Z2), "qd"),
        (lambda x: dl.system_energy(CHAIN, Z2, x), "qd"),
        (lambda x: dl.rnea(CHAIN, Z2, Z2, Z2, f_ext=np.full((2, 6), x[0])), "f_ext"),
    ],
)
def test_states_so_large_that_the_dynamics_overflow(call, name):
    # was: inf or NaN from v x* I v with qd = 1e300 (and the like)
    with pytest.raises(ValueError, match=rf"{name} must have entries of magnitude at most 1e\+40"):
        call(np.array([1e300, 0.0]))
    call(np.array([1e30, 0.0]))  # large but representable: still computed


def test_missing_velocities_are_named():
    # was TypeError: 'NoneType' object is not subscriptable
    contact = dl.line_coordinates([2.0, 0, 0], [0, 1.0, 0])
    with pytest.raises(TypeError, match="qd must hold real numbers"):
        dl.contact_impulse(CHAIN, Z2, None, contact, 0.5, 1)
    with pytest.raises(TypeError, match="qdd must hold real numbers"):
        dl.joint_wrenches(CHAIN, Z2, Z2, None)
    for call in (dl.system_energy, dl.system_kinetic_energy, dl.system_momentum):
        with pytest.raises(TypeError, match="qd must hold real numbers"):
            call(CHAIN, Z2, None)


@pytest.mark.parametrize(
    "epsilon, error, message",
    [(np.nan, ValueError, "epsilon .* must be finite"), (1.5, ValueError, r"epsilon .* must be at most 1"),
     (-0.5, ValueError, r"epsilon .* must be at least 0"), ("half", TypeError, "epsilon .* must be a real number")],
)
def test_the_coefficient_of_restitution(epsilon, error, message):
    contact = dl.line_coordinates([2.0, 0, 0], [0, 1.0, 0])
    # was: J = nan (NaN, inf) or an impulse that gains energy (epsilon > 1)
    with pytest.raises(error, match=message):
        dl.impulse_propagation(CHAIN, Z2, [1.0, 0], contact, epsilon)
    with pytest.raises(error, match=message):
        dl.contact_impulse(CHAIN, Z2, [1.0, 0], contact, epsilon, 1)


def test_the_contact_line_must_be_finite():
    contact = np.array([0, 1.0, 0, 0, 0, np.nan])
    with pytest.raises(ValueError, match="contact must be finite"):
        dl.impulse_propagation(CHAIN, Z2, [1.0, 0], contact, 0.5)
    with pytest.raises(ValueError, match="contact must be finite"):
        dl.contact_impulse(CHAIN, Z2, [1.0, 0], contact, 0.5, 1)


def test_symbolic_restitution_still_passes():
    import sympy as sp

    e = sp.Symbol("e", nonnegative=True)
    res = dl.impulse_propagation(CHAIN.exact(), [0, 0], np.array([1, 0], dtype=object),
                                 dl.line_coordinates([2, 0, 0], [0, 1, 0]), e)
    assert sp.simplify(res.v_bounce + e * res.v_impact) == 0


def test_body_indices_are_ints_not_bools():
    # True used to count as body 1
    with pytest.raises(ValueError, match=r"body must be an index in \[0, 2\), got True"):
        dl.body_jacobian(CHAIN, Z2, True)


@pytest.mark.parametrize("source", [None, 123, b"<robot/>"])
def test_load_urdf_source_of_the_wrong_type(source):
    # was TypeError from pathlib: "expected str, bytes or os.PathLike object, not NoneType"
    with pytest.raises(TypeError, match="source must be a path or the URDF text"):
        dl.load_urdf(source)


def test_load_urdf_empty_source_and_bad_inertia_values():
    # "" was read as a path: IsADirectoryError
    with pytest.raises(ValueError, match="source is empty"):
        dl.load_urdf("  ")
    assert dl.load_urdf(URDF.replace("IXX", "0.1")).nv == 1
    # was ValueError: could not convert string to float: 'abc' (no link, no attribute)
    with pytest.raises(ValueError, match=r"link 'arm' inertia ixx must be 1 numbers, got 'abc'"):
        dl.load_urdf(URDF.replace("IXX", "abc"))


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: dl.quaternion_multiply([0, 0, 0, np.nan], [0, 0, 0, 1.0]), "q1 must be finite"),
        (lambda: dl.quaternion_conjugate([np.inf, 0, 0, 1.0]), "q must be finite"),
        (lambda: dl.quaternion_rate_matrix([np.nan, 0, 0, 1.0]), "q must be finite"),
        (lambda: dl.normalize_quaternion([np.nan, 0, 0, 1.0]), "q must be finite"),
        (lambda: dl.quaternion_multiply([1e300, 0, 0, 0], [1e300, 0, 0, 0]), "q1 must have entries of magnitude"),
        (lambda: dl.quaternion_from_rotation_vector([np.nan, 0, 0]), "w must be finite"),
        (lambda: dl.quaternion_from_rotation_vector([1e300, 0, 0]), "w must have entries of magnitude at most"),
        (lambda: dl.quaternion_from_rotation(np.full((3, 3), np.nan)), "R must be finite"),
        (lambda: dl.quaternion_from_rotation(-5 * np.eye(3)), r"R must be a rotation matrix"),
        (lambda: dl.rotation_about_axis([0, 0, 1], np.nan), "angle must be finite"),
        (lambda: dl.rotation_from_rpy(0.1, np.inf, 0.3), "angle must be finite"),
    ],
)
def test_rotations_and_quaternions_reject_non_finite_input(call, message):
    # each returned NaN (or garbage, for a matrix that is no rotation) without an error
    with pytest.raises(ValueError, match=message):
        call()


def test_quaternion_from_rotation_still_inverts_rotation_from_quaternion(rng):
    q = dl.random_quaternion(rng)
    q = q if q[3] >= 0 else -q
    assert np.allclose(dl.quaternion_from_rotation(dl.rotation_from_quaternion(q)), q, rtol=0, atol=1e-12)
    import sympy as sp

    with pytest.raises(TypeError, match="needs a numeric R"):
        dl.quaternion_from_rotation(np.full((3, 3), sp.Symbol("r"), dtype=object))


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: dl.twist_from_screw([np.inf, 0, 0], [0, 0, 1]), ValueError, "point must be finite"),
        (lambda: dl.wrench_from_screw([0, 0, 0], [0, 0, 1], 0, np.nan), ValueError, "magnitude must be finite"),
        (lambda: dl.twist_from_screw([0, 0, 0], [0, 0, 1], "x"), TypeError, "pitch must be a real number"),
        (lambda: dl.twist_from_screw([0, 0, 0], [0, 0, 1], 1e300, 1e300), ValueError, "pitch must be at most 1e\\+40"),
        (lambda: dl.line_coordinates([np.nan, 0, 0], [0, 0, 1]), ValueError, "point must be finite"),
        (lambda: dl.screw_of_twist([0, 0, 0, 0, 0, 1e300]), ValueError, "v must have entries of magnitude"),
        (lambda: dl.screw_of_wrench([1e300, 0, 0, 0, 0, 0]), ValueError, "f must have entries of magnitude"),
        (lambda: dl.cylindroid(np.ones(6), np.ones(6), "x"), TypeError, "theta must be a real number"),
        (lambda: dl.cylindroid(np.ones(6), np.ones(6), [0.1, np.nan]), ValueError, "theta must be finite"),
    ],
)
def test_screws_reject_bad_input(call, error, message):
    # NaN results, a wrong pure-translation answer after overflow (1e300), or numpy's ufunc TypeError
    with pytest.raises(error, match=message):
        call()


def test_an_infinite_pitch_is_still_a_pure_translation():
    assert np.allclose(dl.twist_from_screw([np.nan, 0, 0], [0, 0, 1], np.inf, 2.0), [0, 0, 2, 0, 0, 0])


@pytest.mark.parametrize(
    "args, message",
    [
        ((np.inf, np.zeros(3), np.eye(3)), "mass must be finite"),
        ((1e300, np.zeros(3), np.eye(3)), "mass must be at most 1e\\+40"),
        (("x", np.zeros(3), np.eye(3)), "mass must be a real number"),
        ((1.0, [0, np.nan, 0], np.eye(3)), "com must be finite"),
        ((1.0, [1e300, 0, 0], np.eye(3)), "com must have entries of magnitude at most"),
        ((1.0, np.zeros(3), np.diag([1.0, 1.0, np.inf])), "inertia_com must be finite"),
    ],
)
def test_spatial_inertia_rejects_impossible_parameters(args, message):
    # NaN/inf inertias, or numpy's LinAlgError "Eigenvalues did not converge" for an infinite inertia_com
    with pytest.raises((ValueError, TypeError), match=message):
        dl.spatial_inertia(*args)


@pytest.mark.parametrize(
    "duration, dt, error, message",
    [
        (np.inf, 0.01, ValueError, "duration must be finite"),  # was OverflowError
        (0.1, np.nan, ValueError, "dt must be finite"),
        (0.1, "x", TypeError, "dt must be a real number"),  # was Python's "'>' not supported"
        (1e300, 0.01, ValueError, "steps is more than 10,000,000"),  # was a hang
    ],
)
def test_simulate_checks_duration_and_step(duration, dt, error, message):
    with pytest.raises(error, match=message):
        dl.simulate(CHAIN, Z2, Z2, duration, dt)


def test_simulate_checks_the_model_first():
    # was AttributeError: 'str' object has no attribute 'nv'
    with pytest.raises(TypeError, match="model must be a dynlib Model, got str"):
        dl.simulate("chain", Z2, Z2, 0.1, 0.01)


def test_simulate_with_no_joints_and_an_empty_object_array_stays_numeric():
    # an empty object array used to switch the simulation to sympy (a hang)
    welded = dl.Model((-1,), (dl.fixed(),), np.eye(4)[None], np.eye(6)[None])
    empty = np.zeros(0, dtype=object)
    traj = dl.simulate(welded, np.zeros(0), empty, 0.02, 0.01, tau=empty)
    assert traj.q.shape == (3, 0) and traj.energy.dtype == float


def test_point_jacobian_point_must_be_finite():
    # was: a Jacobian full of NaN
    with pytest.raises(ValueError, match="point must be finite"):
        dl.point_jacobian(CHAIN, Z2, 1, [np.nan, 0, 0])


def test_arrays_of_other_objects_and_ragged_sequences():
    # was TypeError: unsupported operand type(s) for *: 'float' and 'NoneType', or a hang in sympy
    with pytest.raises(TypeError, match="q must hold real numbers or sympy expressions, got an entry None"):
        dl.rnea(CHAIN, np.array([None, None]), Z2, Z2)
    # was numpy's "setting an array element with a sequence"
    with pytest.raises(ValueError, match="qd must be a rectangular array of numbers, got a ragged sequence"):
        dl.rnea(CHAIN, Z2, [[1.0, 2.0], [3.0]], Z2)


@pytest.mark.parametrize(
    "change, error, message",
    [
        (dict(parent=None), TypeError, "parent must be a sequence"),  # was 'NoneType' object is not iterable
        (dict(joints=None), TypeError, "joints must be a sequence"),
        (dict(names=[np.zeros(2), "b"]), ValueError, "names must be 2 distinct strings"),  # was unhashable type
    ],
)
def test_model_parts_of_the_wrong_type(change, error, message):
    parts = dict(parent=CHAIN.parent, joints=CHAIN.joints, placements=CHAIN.placements, inertias=CHAIN.inertias)
    parts.update(change)
    with pytest.raises(error, match=message):
        dl.Model(**parts)


def test_joint_kind_and_pitch_of_the_wrong_type():
    # was TypeError: unhashable type: 'list'
    with pytest.raises(ValueError, match="joint kind must be one of"):
        dl.Joint(["revolute"])
    # was numpy's "ufunc 'isfinite' not supported for the input types"
    with pytest.raises(TypeError, match="helical pitch must be a real number"):
        dl.helical((0, 0, 1), "x")
    with pytest.raises(ValueError, match="helical pitch must be finite"):
        dl.helical((0, 0, 1), np.nan)


def test_constraints_that_are_not_a_list():
    # was TypeError: 'NoneType' object is not iterable
    with pytest.raises(TypeError, match="constraints must be a list of LoopConstraint or JointCoupling, got NoneType"):
        dl.constrained_forward_dynamics(CHAIN, Z2, Z2, Z2, None)


# -- the geometry modules (spatial algebra, Lie groups, screws, rotations, inertia, decompositions,
# projective geometry) and the marker functions: each case below returned NaN or infinity, or raised
# IndexError, AttributeError, OverflowError, LinAlgError or numpy's own message naming no argument

NAN3 = [np.nan, 0.0, 0.0]
POSE = dl.homogeneous(dl.rotation_about_axis([0, 0, 1], 0.3), [1.0, 2.0, 3.0])


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: dl.skew(NAN3), ValueError, "w must be finite"),
        (lambda: dl.skew(np.array([NAN3, NAN3])), ValueError, "w must be finite"),
        (lambda: dl.unskew(np.full((3, 3), np.inf)), ValueError, "S must be finite"),
        (lambda: dl.cross3([1.0, 2.0], [1.0, 2.0, 3.0]), ValueError, r"a must have shape \(\.\.\., 3\), got \(2,\)"),
        (lambda: dl.cross3(NAN3, [1.0, 2.0, 3.0]), ValueError, "a must be finite"),
        (lambda: dl.cross3([1e300, 0, 0], [0, 1e300, 0]), ValueError, "a must have entries of magnitude at most"),
        (lambda: dl.cross3(np.ones((2, 3)), np.ones((3, 3))), ValueError, r"must broadcast, got a \(2,\), b \(3,\)"),
        (lambda: dl.crm([0, 0, 0, 0, 0, np.inf]), ValueError, "v must be finite"),
        (lambda: dl.crf([0, 0, 0, 0, 0, np.nan]), ValueError, "v must be finite"),
        (lambda: dl.cross_motion(np.ones(6), 0.5), ValueError, r"m must have shape \(\.\.\., 6\), got \(\)"),
        (lambda: dl.cross_force(np.ones(6), [0, 0, 0, 0, np.nan, 0]), ValueError, "f must be finite"),
        (lambda: dl.cross_motion(np.full((2, 6), np.inf), np.ones(6)), ValueError, "v must be finite"),
        (lambda: dl.motion_transform(np.eye(3), NAN3), ValueError, "p must be finite"),
        (lambda: dl.force_transform(np.full((3, 3), np.inf), np.zeros(3)), ValueError, "R must be finite"),
        (lambda: dl.motion_transform(np.stack([np.eye(3)] * 2), np.zeros((3, 3))), ValueError, "axes must broadcast"),
        (lambda: dl.inverse_transform(np.full((6, 6), np.nan)), ValueError, "X must be finite"),
    ],
)
@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # numpy warns of the NaN before the check
def test_spatial_algebra_rejects_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_spatial_algebra_still_takes_batches_sympy_and_large_finite_values(rng):
    import sympy as sp

    v, m = rng.normal(size=(4, 6)), rng.normal(size=(4, 6))
    assert np.allclose(dl.cross_motion(v, m), [dl.crm(a) @ b for a, b in zip(v, m)])
    assert np.allclose(dl.cross_force(v[0], m), [dl.crf(v[0]) @ b for b in m])  # one against a batch
    assert np.allclose(dl.cross3(v[:, :3], m[:, :3]), np.cross(v[:, :3], m[:, :3]))
    x = np.array(sp.symbols("x0:6"), dtype=object)
    assert sp.expand(dl.cross_force(x, x)[3]) == 0 and dl.skew(x[:3]).dtype == object
    assert np.all(np.isfinite(dl.skew([1e300, 0, 0])))  # finite entries: only the products overflow


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: dl.homogeneous(np.eye(3), NAN3), ValueError, "p must be finite"),
        (lambda: dl.rotation_translation(np.diag([1.0, 1, 1, 2])), ValueError, r"last row \[0, 0, 0, 1\]"),
        (lambda: dl.homogeneous_inverse(np.full((4, 4), np.nan)), ValueError, "T must be finite"),
        (lambda: dl.Ad(POSE * np.array([1, 1, 1, np.inf])), ValueError, "T must be finite"),
        (lambda: dl.Ad_dual(np.eye(4) * 2), ValueError, "last row"),
        (lambda: dl.hat([0, 0, 0, 0, 0, np.inf]), ValueError, "V must be finite"),
        (lambda: dl.ad([np.nan, 0, 0, 0, 0, 0]), ValueError, "V must be finite"),
        (lambda: dl.ad_dual(np.full(6, -np.inf)), ValueError, "V must be finite"),
        (lambda: dl.vee(np.full((4, 4), np.inf)), ValueError, "M must be finite"),
        (lambda: dl.exp_so3(NAN3), ValueError, "w must be finite"),
        (lambda: dl.exp_so3([1e200, 1e200, 0]), ValueError, "w must have norm at most 1e\\+40"),
        (lambda: dl.exp_so3([[0.1, 0.2, 0.3]]), ValueError, r"w must have shape \(3,\), got \(1, 3\)"),
        (lambda: dl.log_so3(1.5 * np.eye(3)), ValueError, "R must be a rotation matrix"),
        (lambda: dl.log_so3(np.full((3, 3), np.nan)), ValueError, "R must be finite"),
        (lambda: dl.exp_se3([np.nan, 0, 0, 0, 0, 1]), ValueError, "V must be finite"),
        (lambda: dl.log_se3(np.diag([-1.0, 1, 1, 1])), ValueError, "R must be a rotation matrix"),
    ],
)
@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # numpy warns of the NaN before the check
def test_lie_group_functions_reject_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_lie_group_functions_still_accept_poses_and_sympy():
    import sympy as sp

    assert np.allclose(dl.exp_se3(dl.log_se3(POSE)), POSE)
    t = sp.Symbol("t", positive=True)
    assert dl.exp_so3(np.array([0, 0, t], dtype=object))[0, 0] == sp.cos(t)


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: dl.reciprocal_product(0.5, np.ones(6)), ValueError, r"a must have shape \(\.\.\., 6\)"),
        (lambda: dl.reciprocal_product(np.ones(6), [0, 0, 0, np.inf, 0, 0]), ValueError, "b must be finite"),
        (lambda: dl.reciprocal_product(np.ones((2, 6)), np.ones((3, 6))), ValueError, "axes must broadcast"),
        (lambda: dl.line_through_points([0, 0], [1.0, 0, 0]), ValueError, r"p1 must have shape \(3,\), got \(2,\)"),
        (lambda: dl.random_rotation("rng"), TypeError, "rng must be a numpy.random.Generator"),
        (lambda: dl.random_quaternion(None), TypeError, "rng must be a numpy.random.Generator"),
        (lambda: dl.quaternion_multiply(np.ones((2, 4)), np.ones((3, 4))), ValueError, "axes must broadcast"),
    ],
)
def test_screw_and_rotation_helpers_reject_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_quaternion_functions_take_batches(rng):
    # was "not enough values to unpack (expected 4, got 1)" for a (1, 4) quaternion, or a silent
    # mix-up of components for a (4, 4) stack
    q1, q2, w = [dl.random_quaternion(rng) for _ in range(4)], [dl.random_quaternion(rng) for _ in range(4)], \
        rng.normal(size=(4, 3))
    assert np.allclose(dl.quaternion_multiply(q1, q2), [dl.quaternion_multiply(a, b) for a, b in zip(q1, q2)])
    assert np.allclose(dl.quaternion_rate_matrix(q1), [dl.quaternion_rate_matrix(a) for a in q1])
    assert np.allclose(dl.quaternion_from_rotation_vector(w), [dl.quaternion_from_rotation_vector(a) for a in w])
    assert np.allclose(dl.quaternion_from_rotation_vector(np.zeros((1, 3))), [[0, 0, 0, 1]])


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: dl.transform_inertia(np.eye(6), np.full((6, 6), np.inf)), ValueError, "I must be finite"),
        (lambda: dl.transform_inertia(np.eye(6) * 1e300, np.eye(6) * 1e300), ValueError, "X must have entries of mag"),
        (lambda: dl.transform_inertia(np.stack([np.eye(6)] * 2), np.ones((3, 6, 6))), ValueError, "must broadcast"),
        (lambda: dl.kinetic_energy(np.eye(6), np.full(6, 1e300)), ValueError, "v must have entries of magnitude"),
        (lambda: dl.momentum(np.eye(6), [0, 0, np.inf, 0, 0, 0]), ValueError, "v must be finite"),
        (lambda: dl.momentum(np.eye(6), np.ones((2, 5))), ValueError, r"v must have shape \(\.\.\., 6\)"),
        (lambda: dl.angular_momentum(np.eye(6), np.ones(6), NAN3), ValueError, "point must be finite"),
        (lambda: dl.planar_link_inertia(None), TypeError, "I_zz must be a real number"),
        (lambda: dl.planar_link_inertia(np.nan), ValueError, "I_zz must be finite"),
        (lambda: dl.planar_link_inertia(-1.0), ValueError, "I_zz must be positive"),
        (lambda: dl.planar_body_inertia(None, [0, 0], 0.5), TypeError, "mass must be a real number"),
        (lambda: dl.planar_body_inertia(1.0, [0, 0], 1e300), ValueError, "radius_of_gyration must be at most"),
        (lambda: dl.random_inertia([1, 2]), TypeError, "rng must be a numpy.random.Generator"),
        (lambda: dl.random_inertia(np.random.default_rng(), (np.nan, 1.0)), ValueError, "mass_range must be finite"),
        (lambda: dl.random_inertia(np.random.default_rng(), (2.0, 1.0)), ValueError, "0 < low <= high"),
        (lambda: dl.random_inertia(np.random.default_rng(), com_scale=-1.0), ValueError, "com_scale must be at least"),
    ],
)
@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # numpy warns of the NaN before the check
def test_inertia_functions_reject_bad_input(call, error, message):
    # NaN or inf energies and momenta, Python's "unsupported operand type", OverflowError from
    # rho ** 2, AttributeError from a missing generator, numpy's "scale < 0"
    with pytest.raises(error, match=message):
        call()


DEC = dl.subspace_decomposition(np.eye(6)[:, 5], dl.random_inertia(np.random.default_rng(2)))


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: dl.motion_components("dec", np.ones(6)), TypeError, "dec must be a Decomposition"),
        (lambda: dl.force_components(tuple(DEC)[:3], np.ones(6)), TypeError, "dec must be a Decomposition"),
        (lambda: dl.motion_components(dl.basic_decomposition(DEC.s, np.diag([1.0, 2, 3, 4, 5, 6])), np.ones(6)),
         ValueError, r"dec must have \[s U\]\.T @ \[T R\] = 1"),
        (lambda: dl.motion_components(DEC, [np.inf, 0, 0, 0, 0, 0]), ValueError, "a must be finite"),
        (lambda: dl.projected_acceleration(None, np.eye(6), *[np.zeros(6)] * 2, [0.0], *[np.zeros(6)] * 2),
         TypeError, "dec must be a Decomposition"),
        (lambda: dl.projected_force(DEC, np.eye(6), *[np.zeros(6)] * 2, [np.inf], *[np.zeros(6)] * 2),
         ValueError, "Q must be finite"),
        (lambda: dl.projected_force(DEC, np.eye(6), *[np.zeros(6)] * 2, [0.0], np.zeros(6), np.zeros((1, 6))),
         ValueError, "f_next must be one vector"),
        (lambda: dl.subspace_decomposition(np.eye(6)[:, 5], np.full((6, 6), np.inf)), ValueError, "I must be finite"),
        (lambda: dl.basic_decomposition([0, 0, 0, 0, 0, 1e300], np.eye(6)), ValueError, "s must have entries of mag"),
    ],
)
@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # numpy warns of the NaN before the check
def test_decompositions_reject_bad_input(call, error, message):
    # AttributeError ('str' object has no attribute 's'), NaN results, LinAlgError from an
    # infinite inertia, numpy's matmul message for a batch where one vector belongs
    with pytest.raises(error, match=message):
        call()


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: dl.homogeneous_point(np.ones((2, 2)), np.ones(3)), ValueError, r"axes must broadcast, got xy \(2,\)"),
        (lambda: dl.homogeneous_point([1.0, 2.0], np.inf), ValueError, "weight must be finite"),
        (lambda: dl.homogeneous_line([np.nan, 0], [1.0, 0]), ValueError, "point must be finite"),
        (lambda: dl.cartesian_point([1.0, np.nan, 0]), ValueError, "P must be finite"),
        (lambda: dl.line_point_direction([0.0, np.inf, 1]), ValueError, "L must be finite"),
        (lambda: dl.incidence([1.0, 0, 0], [np.inf, 0, 0]), ValueError, "L must be finite"),
        (lambda: dl.point_of_twist([0.0, 0, -np.inf]), ValueError, "v must be finite"),
        (lambda: dl.line_of_wrench([np.nan, 0, 0]), ValueError, "f must be finite"),
        (lambda: dl.inertia_point_line_map(np.diag([1.0, 1, np.inf])), ValueError, "I must be finite"),
        (lambda: dl.percussion_axis(np.eye(3), [np.nan, 0]), ValueError, "pivot must be finite"),
    ],
)
@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # numpy warns of the NaN before the check
def test_projective_functions_reject_bad_input(call, error, message):
    # NaN points and lines, numpy's "cannot broadcast a non-scalar to a scalar array", or
    # LinAlgError "Eigenvalues did not converge" for an infinite inertia
    with pytest.raises(error, match=message):
        call()


def test_percussion_axis_of_a_batch_of_pivots(rng):
    # C @ P treated a (3, 3) stack of pivots as one matrix; now each pivot gets its axis
    I = dl.planar_body_inertia(1.5, [0.3, -0.2], 0.4)
    pivots = rng.normal(size=(3, 2))
    assert np.allclose(dl.percussion_axis(I, pivots), [dl.percussion_axis(I, p) for p in pivots])


KIN = dl.forward_kinematics(CHAIN, [0.3, -0.2], [1.0, 0.5], [0.0, 0.1])


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: dl.marker_motion("kin", 0, np.zeros(3)), TypeError, "kin must be the Kinematics of forward_kin"),
        (lambda: dl.marker_motion(KIN, 1.0, np.zeros(3)), ValueError, r"body must be an index in \[0, 2\), got 1\.0"),
        (lambda: dl.marker_motion(KIN, -1, np.zeros(3)), ValueError, r"body must be an index in \[0, 2\), got -1"),
        (lambda: dl.marker_motion(KIN, 1, NAN3), ValueError, "point must be finite"),
        (lambda: dl.direction_marker_motion(CHAIN, 0, [1.0, 0, 0]), TypeError, "kin must be the Kinematics"),
        (lambda: dl.direction_marker_motion(KIN, True, [1.0, 0, 0]), ValueError, r"body must be an index"),
        (lambda: dl.direction_marker_motion(KIN, 0, [np.inf, 0, 0]), ValueError, "direction must be finite"),
        (lambda: dl.centres_of_mass(None, KIN), TypeError, "model must be a dynlib Model"),
        (lambda: dl.centres_of_mass(dl.planar_chain(3), KIN), ValueError, r"Kinematics of model \(3 bodies\)"),
    ],
)
def test_marker_functions_reject_bad_input(call, error, message):
    # AttributeError ('str' object has no attribute 'p'), IndexError for a float body, the
    # last body for body -1, NaN positions, numpy's broadcast error for another model's kinematics
    with pytest.raises(error, match=message):
        call()


# ---- found by a hostile-input review: each was silently accepted -----------------------------------------------

FREE_CHAIN = dl.planar_chain(2, gravity=(0, 0, 0))
LINE = dl.line_coordinates([2.0, 0.0, 0.0], [0.0, 1.0, 0.0])  # a line above the stretched chain's tip


@pytest.mark.parametrize("impact", [dl.impulse_propagation, dl.contact_impulse])
def test_a_contact_direction_that_is_not_unit_length(impact):
    # was: v_impact doubled and J halved for a direction of length 2
    with pytest.raises(ValueError, match=r"contact must be a line \[e; r x e\] with a unit direction e .* length 2"):
        impact(FREE_CHAIN, Z2, [1.0, 0.0], 2 * LINE, 0.5)


@pytest.mark.parametrize("impact", [dl.impulse_propagation, dl.contact_impulse])
def test_a_contact_that_is_a_pure_couple(impact):
    # was: accepted, J = 0.219
    with pytest.raises(ValueError, match=r"direction e = \[0.0, 0.0, 0.0\] is zero: a pure couple, not a line"):
        impact(FREE_CHAIN, Z2, [1.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 1.0], 0.5)


@pytest.mark.parametrize("impact", [dl.impulse_propagation, dl.contact_impulse])
def test_a_contact_screw_with_a_pitch(impact):
    with pytest.raises(ValueError, match=r"e \. \(r x e\) = 1, a screw with a pitch, not a line"):
        impact(FREE_CHAIN, Z2, [1.0, 0.0], [0.0, 1.0, 0.0, 0.0, 1.0, 0.0], 0.5)


@pytest.mark.parametrize("impact", [dl.impulse_propagation, dl.contact_impulse])
def test_a_restitution_given_as_a_bool(impact):
    with pytest.raises(TypeError, match=r"epsilon \(the coefficient of restitution\) must be a real number, got True "
                                        r"\(a bool\)"):
        impact(FREE_CHAIN, Z2, [1.0, 0.0], LINE, True)


@pytest.mark.parametrize("name", ["q", "qd", "qdd"])
def test_joint_vectors_given_as_booleans(name):
    args = {"q": Z2, "qd": Z2, "qdd": Z2}
    args[name] = np.array([True, False])
    with pytest.raises(TypeError, match=rf"{name} must hold real numbers .* got booleans"):
        dl.rnea(CHAIN, args["q"], args["qd"], args["qdd"])


def test_a_motion_transform_of_a_matrix_that_is_not_a_rotation():
    with pytest.raises(ValueError, match=r"R must be a rotation matrix \(orthonormal, det \+1\), got \[\[2.0"):
        dl.motion_transform(2 * np.eye(3), [1.0, 0.0, 0.0])


def test_the_inverse_of_a_matrix_that_is_not_a_pluecker_transform():
    X = np.random.default_rng(0).normal(size=(6, 6))
    with pytest.raises(ValueError, match=r"X must be a Plücker transform, \[\[R, \[p\] R\], \[0, R\]\] .* must be a "
                                        r"rotation matrix"):
        dl.inverse_transform(X)
    X = dl.motion_transform(dl.rotation_about_axis([0, 0, 1], 0.3), [1.0, 2.0, 3.0])
    X[:3, 3:] += np.eye(3)  # [p] R plus a symmetric part
    with pytest.raises(ValueError, match=r"off-diagonal block times R\^T is not skew-symmetric"):
        dl.inverse_transform(X)


def test_a_point_mobility_of_a_negative_definite_matrix():
    # was: a negative-definite point mobility
    with pytest.raises(ValueError, match=r"Lambda_inv \(a 6x6 articulated mobility\) must be positive semi-definite"):
        dl.point_mobility(-np.eye(6), [0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match=r"Lambda_inv \(a 6x6 articulated mobility\) must be symmetric"):
        dl.point_mobility(np.triu(np.ones((6, 6))), [0.0, 0.0, 0.0])


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_transform_inertia_of_entries_that_are_not_finite(bad):
    # was: numpy overflow warnings
    I = dl.spatial_inertia(1.0, np.zeros(3), np.eye(3))
    X = dl.motion_transform(np.eye(3), [1.0, 0.0, 0.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no numpy warning on the way to the error
        with pytest.raises(ValueError, match="I must be finite"):
            dl.transform_inertia(X, np.full((6, 6), bad))
        with pytest.raises(ValueError, match="X must be finite"):
            dl.transform_inertia(np.where(np.eye(6) > 0, bad, X), I)


def test_log_so3_of_a_huge_matrix():
    # was: numpy overflow warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=r"R must be a rotation matrix .*an entry of magnitude 1e\+300, where a "
                                             r"rotation's are at most 1"):
            dl.log_so3(1e300 * np.eye(3))
