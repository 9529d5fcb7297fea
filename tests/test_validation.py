"""Input validation found missing by the fuzz campaign (tools/fuzz.py): one regression test per fix.

Each call below used to return NaN or infinity, hang, or raise an undocumented exception
(AttributeError, OverflowError, LinAlgError, or Python's own TypeError naming no argument);
now it raises ValueError or TypeError naming the argument, what was given and what was expected.
"""

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
    contact = dl.contact_line([2.0, 0, 0], [0, 1.0, 0])
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
    contact = dl.contact_line([2.0, 0, 0], [0, 1.0, 0])
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
                                 dl.contact_line([2, 0, 0], [0, 1, 0]), e)
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
    with pytest.raises(TypeError, match="constraints must be a list of LoopConstraint, got NoneType"):
        dl.constrained_forward_dynamics(CHAIN, Z2, Z2, Z2, None)
