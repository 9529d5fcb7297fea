"""The URDF reader on real robots: every file of the ``example-robot-data`` package (UR, Panda,
Kinova, xArm, Baxter, PR2, TIAGo, Talos, iCub, Romeo, Solo, Go1, Go2, A1, B1, ANYmal, HyQ, the
Allegro hand, SO-100, ...), with a fixed and with a floating base, against Pinocchio's own URDF
parser: ``rnea``, ``crba`` and ``aba`` at random states, joints matched by name.  Files whose inertias
no rigid body has (negative principal moments: Romeo's small model, TIAGo's antenna; moments breaking
the triangle inequality; rotational inertias without mass) are read as given, with a warning, as
Pinocchio reads them.  The files with mimic joints are read again with ``mimic="constraint"``: the
couplings hold after ``project_configuration``, constrained forward dynamics keeps them, and where
Pinocchio's own mimic parser reads the file the reduced mass matrix ``G^T H G`` equals its ``crba``.

A file dynlib refuses is listed in ``REFUSED`` with the reason, and the test checks that it is
refused for that reason.  The package (about 130 MB, test-only: ``requirements-test.txt``) ships
its robots as data without a Python module, so it is found through its installed metadata; without
it (or without Pinocchio) the module fails to import.
"""

import warnings
import xml.etree.ElementTree as ET
from importlib import metadata
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pytest

import dynlib as dl

from conftest import assert_close
from pinocchio_bridge import pin, pinocchio_indices

try:
    ROBOTS = Path(metadata.distribution("example-robot-data").locate_file(
        "cmeel.prefix/share/example-robot-data/robots"))
except metadata.PackageNotFoundError:
    raise ImportError("example-robot-data is not installed: pip install -r requirements-test.txt") from None

FILES = sorted(str(path.relative_to(ROBOTS)) for path in ROBOTS.rglob("*.urdf"))
RTOL = 1e-8
STATES = 3  # random states per robot and base


class Refusal(NamedTuple):
    bases: tuple    # the bases ("fixed", "floating") for which the file is refused
    reason: str     # a regular expression the ValueError must match
    pinocchio: bool  # whether Pinocchio's parser reads the file


BOTH = ("fixed", "floating")
#: file -> why dynlib refuses it (every other file must load and agree with Pinocchio)
REFUSED = {
    # an empty <robot> (a leftover of xacro); Pinocchio refuses it too
    "ur_description/urdf/ur3.urdf": Refusal(BOTH, r"the URDF has no <link>", pinocchio=False),
    # one rigid body: on a fixed base nothing moves (floating, it is a free body and agrees)
    "hector_description/robots/quadrotor_base.urdf": Refusal(("fixed",), "no movable joint", pinocchio=True),
    "iris_description/robots/iris_simple.urdf": Refusal(("fixed",), "no movable joint", pinocchio=True),
}
#: files with a rotational inertia that has a negative principal moment beyond round-off, read as given with a
#: warning naming the link and the moment (tested below, and compared with Pinocchio like every file)
NEGATIVE_MOMENTS = {
    "romeo_description/urdf/romeo_laas_small.urdf": r"link 'body': the rotational inertia has a negative principal "
                                                    r"moment -0.0213",
    **{f"tiago_description/robots/{name}.urdf": r"link 'base_antenna_left_link': the rotational inertia has a "
                                                r"negative principal moment -3.53e-08"
       for name in ("tiago", "tiago_dual", "tiago_no_hand")},
}
#: file -> why dynlib's aba refuses its states: joints with no inertia along their motion
#: (Pinocchio's aba returns NaN there); rnea and crba are still compared
NO_FORWARD_DYNAMICS = {
    # Romeo's 24 finger and thumb links (mimic joints) have no <inertial>
    "romeo_description/urdf/romeo.urdf": r"D = s\^T IA s of joint \d+ has rank 0, expected 1 .* carry no inertia",
    # the small Romeo's grippers (l_gripper, r_gripper) have no <inertial> either
    "romeo_description/urdf/romeo_laas_small.urdf": r"D = s\^T IA s of joint \d+ has rank 0, expected 1 .* carry no "
                                                    r"inertia",
}


def test_the_package_ships_the_robots_the_issue_names():
    assert len(FILES) >= 60
    for robot in ("ur5_robot", "panda", "kinova", "xarm7", "baxter", "pr2", "tiago", "talos_full_v2", "icub",
                  "romeo", "solo12", "go1", "go2", "a1", "b1", "anymal", "hyq_no_sensors", "allegro_right_hand",
                  "so100"):
        assert any(Path(name).stem == robot for name in FILES), robot
    assert set(REFUSED) | set(NO_FORWARD_DYNAMICS) | set(NEGATIVE_MOMENTS) | set(MIMIC_REFUSED) | \
        set(MIMIC_NO_FORWARD_DYNAMICS) | PINOCCHIO_MIMIC_REFUSES <= set(MIMIC_FILES) | set(FILES)
    assert set(MIMIC_REFUSED) | set(MIMIC_NO_FORWARD_DYNAMICS) | PINOCCHIO_MIMIC_REFUSES <= set(MIMIC_FILES)


@pytest.mark.parametrize("name", sorted(NEGATIVE_MOMENTS))
def test_a_negative_principal_moment_is_read_with_a_warning_naming_the_link(name):
    with pytest.warns(UserWarning, match=NEGATIVE_MOMENTS[name]):
        dl.load_urdf(ROBOTS / name)


def joint_names(path, model, floating):
    """Pinocchio's name for each body's joint: the URDF joint whose child link names the body."""
    joints = ET.parse(path).getroot().findall("joint")
    joint_of = {joint.find("child").get("link"): joint.get("name") for joint in joints}
    return ["root_joint" if floating and i == 0 else joint_of[name] for i, name in enumerate(model.names)]


def load_both(path, floating):
    """(dynlib model, Pinocchio model) of one file; dynlib's warnings about the file's data are expected."""
    reference = pin.buildModelFromUrdf(str(path), pin.JointModelFreeFlyer()) if floating else \
        pin.buildModelFromUrdf(str(path))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        model = dl.load_urdf(path, floating_base=floating)
    return model, reference


@pytest.mark.parametrize("base", ["fixed", "floating"])
@pytest.mark.parametrize("name", FILES)
def test_every_robot_loads_and_agrees_with_pinocchio_or_is_refused_for_its_reason(name, base):
    path, floating = ROBOTS / name, base == "floating"
    refusal = REFUSED.get(name)
    if refusal is not None and base in refusal.bases:
        with pytest.raises(ValueError, match=refusal.reason):
            dl.load_urdf(path, floating_base=floating)
        if refusal.pinocchio:
            pin.buildModelFromUrdf(str(path))
        return
    model, reference = load_both(path, floating)
    assert (model.nv, model.n_bodies) == (reference.nv, reference.njoints - 1)
    P, pinocchio_state = pinocchio_indices(model, reference, joint_names(path, model, floating))
    data = reference.createData()
    rng = np.random.default_rng(sum(map(ord, name)) + floating)
    for _ in range(STATES):
        q, qd, qdd = dl.random_configuration(model, rng), dl.random_velocity(model, rng), dl.random_velocity(model, rng)
        q_pin, v_pin = pinocchio_state(q, qd)
        a_pin = np.zeros(reference.nv)
        a_pin[P] = qdd
        tau_pin = pin.rnea(reference, data, q_pin, v_pin, a_pin)
        tau = tau_pin[P]
        assert_close(dl.rnea(model, q, qd, qdd), tau, rtol=RTOL)
        H = pin.crba(reference, data, q_pin)
        H = (np.triu(H) + np.triu(H, 1).T)[np.ix_(P, P)]
        assert_close(dl.crba(model, q), H, rtol=RTOL)
        if name in NO_FORWARD_DYNAMICS:
            with pytest.raises(ValueError, match=NO_FORWARD_DYNAMICS[name]):
                dl.aba(model, q, qd, tau)
            continue
        # the accelerations agree in the joint forces they take, H (qdd - qdd_pin), relative to H qdd:
        # their own difference is up to cond(H) times larger (1e7 for iCub's and TIAGo's fingers)
        qdd_pin = pin.aba(reference, data, q_pin, v_pin, tau_pin)[P]
        assert_close(H @ dl.aba(model, q, qd, tau), H @ qdd_pin, rtol=RTOL,
                     scale=np.abs(H).max() * np.abs(qdd_pin).max())


# -- mimic joints kept as couplings -----------------------------------------------------------------

MIMIC_FILES = [name for name in FILES if "<mimic" in (ROBOTS / name).read_text()]
#: file -> why ``load_urdf(..., mimic="constraint")`` refuses it
MIMIC_REFUSED = {
    # its q2 finger joints mimic 'index_q1', 'middle_q1', ..., which are not joints of the file (the hands' own
    # joints are 'Left_index_q1', ...); read with mimic="independent" it loads and agrees with Pinocchio above
    "alex_description/urdf/alex_psyonic_hands.urdf": r"joint '\w+_q2' mimics joint '\w+_q1', not a joint of the file",
}
#: file -> why constrained forward dynamics refuses it: it solves with the mass matrix H of the tree, which has
#: lost rank when links carry no inertia (Romeo's 24 massless finger joints, as for aba in NO_FORWARD_DYNAMICS),
#: even where the couplings tie them to joints that have some
MIMIC_NO_FORWARD_DYNAMICS = {
    "romeo_description/urdf/romeo.urdf": r"the mass matrix H is not positive definite \(eigenvalues \[below",
}
#: files Pinocchio's mimic option (buildModelFromUrdf(..., mimic=True), Pinocchio 4) refuses with "The parent
#: joint of the mimic joint is not in the kinematic tree"; the other files are compared with it
PINOCCHIO_MIMIC_REFUSES = {
    "alex_description/urdf/alex_psyonic_hands.urdf",
    "romeo_description/urdf/romeo.urdf",
    "talos_data/robots/talos_full_v2.urdf",
    "talos_data/robots/talos_full_v2_box.urdf",
}


def test_the_package_ships_robots_with_mimic_joints():
    assert {"panda_description/urdf/panda.urdf", "pr2_description/urdf/pr2.urdf", "baxter_description/urdf/baxter.urdf",
            "romeo_description/urdf/romeo.urdf", "tiago_pro_description/robots/tiago_pro.urdf"} <= set(MIMIC_FILES)


@pytest.mark.parametrize("name", MIMIC_FILES)
def test_mimic_joints_kept_as_couplings_hold_and_agree_with_pinocchios_mimic_model(name):
    path = ROBOTS / name
    if name in MIMIC_REFUSED:
        with pytest.raises(ValueError, match=MIMIC_REFUSED[name]):
            dl.load_urdf(path, mimic="constraint")
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the files' inertias used as given
        model, couplings = dl.load_urdf(path, mimic="constraint")
    names = joint_names(path, model, False)
    # one coupling per movable joint with a <mimic>, on the joints the file names (Talos's grippers mimic on fixed
    # joints in some files: nothing to keep there)
    movable_mimics = [(joint.get("name"), joint.find("mimic").get("joint"))
                      for joint in ET.parse(path).getroot().findall("joint")
                      if joint.find("mimic") is not None and joint.get("type") != "fixed"]
    assert sorted((names[c.joint], names[c.leader]) for c in couplings) == sorted(movable_mimics)
    if not couplings:
        return
    rng = np.random.default_rng(sum(map(ord, name)))
    q = dl.project_configuration(model, dl.random_configuration(model, rng), couplings)
    for c in couplings:
        j, i = model.q_slices[c.joint].start, model.q_slices[c.leader].start
        assert abs(q[j] - c.multiplier * q[i] - c.offset) <= 1e-12 * max(1.0, np.abs(q).max())
    A = dl.constraint_jacobian(model, q, couplings)  # constant: one row e_j - r e_i per coupling
    qd = dl.random_velocity(model, rng)
    qd -= np.linalg.lstsq(A, A @ qd, rcond=None)[0]  # the nearest velocity that keeps the couplings
    tau = rng.normal(size=model.nv)
    if name in MIMIC_NO_FORWARD_DYNAMICS:
        with pytest.raises(ValueError, match=MIMIC_NO_FORWARD_DYNAMICS[name]):
            dl.constrained_forward_dynamics(model, q, qd, tau, couplings)
    else:
        qdd, _ = dl.constrained_forward_dynamics(model, q, qd, tau, couplings)
        # A qdd + dA/dt qd = 0 (the bias is zero), to round-off of the accelerations' size
        assert_close(A @ qdd, np.zeros(len(couplings)), rtol=RTOL, scale=np.abs(A).max() * np.abs(qdd).max())
    if name in PINOCCHIO_MIMIC_REFUSES:
        with pytest.raises(ValueError, match="The parent joint of the mimic joint is not in the kinematic tree"):
            pin.buildModelFromUrdf(str(path), mimic=True)
        return
    # Pinocchio's mimic model has the independent joints only: its mass matrix is G^T H G, with qd = G yd
    reference = pin.buildModelFromUrdf(str(path), mimic=True)
    coupled = {c.joint: c for c in couplings}
    assert not set(c.leader for c in couplings) & set(coupled)  # no chained mimics in these files
    independent = [i for i in range(model.n_bodies) if i not in coupled]
    G = np.zeros((model.nv, len(independent)))
    G[[model.v_slices[i].start for i in independent], np.arange(len(independent))] = 1.0
    for j, c in coupled.items():
        G[model.v_slices[j].start] = c.multiplier * G[model.v_slices[c.leader].start]
    assert reference.nv == G.shape[1]
    joints = [reference.joints[reference.getJointId(names[i])] for i in independent]
    P = [joint.idx_v for joint in joints]
    q_pin = np.zeros(reference.nq)
    for i, joint in zip(independent, joints):
        angle = q[model.q_slices[i].start]
        q_pin[joint.idx_q:joint.idx_q + joint.nq] = [np.cos(angle), np.sin(angle)] if joint.nq == 2 else angle
    H = pin.crba(reference, reference.createData(), q_pin)
    H = (np.triu(H) + np.triu(H, 1).T)[np.ix_(P, P)]
    assert_close(G.T @ dl.crba(model, q) @ G, H, rtol=RTOL)


#: the URDF texts shipped with dynlib (book/real_robots.ipynb) -> the example-robot-data file each was copied from
SHIPPED = {
    "ur5.urdf": ("ur_description/urdf/ur5_robot.urdf", False),
    "panda.urdf": ("panda_description/urdf/panda.urdf", False),
    "solo12.urdf": ("solo_description/robots/solo12.urdf", True),
}


@pytest.mark.parametrize("shipped", sorted(SHIPPED))
def test_the_shipped_copies_keep_the_dynamics_of_their_originals(shipped):
    """Their headers say only meshes, simulator tags and comments were removed: the models must be the same."""
    from importlib.resources import files

    original, floating = SHIPPED[shipped]
    text = files("dynlib.multibody").joinpath("data", shipped).read_text()
    assert original in text  # the header names its source
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the mimic warning, the same for both
        copy = dl.load_urdf(text, floating_base=floating)
        model = dl.load_urdf(ROBOTS / original, floating_base=floating)
    assert copy.names == model.names and copy.nq == model.nq
    assert [j.kind for j in copy.joints] == [j.kind for j in model.joints]
    assert np.array_equal(copy.arrays.axis, model.arrays.axis)
    assert np.array_equal(copy.placements, model.placements) and np.array_equal(copy.inertias, model.inertias)
    rng = np.random.default_rng(7)
    q, qd, qdd = dl.random_configuration(model, rng), dl.random_velocity(model, rng), dl.random_velocity(model, rng)
    assert np.array_equal(dl.rnea(copy, q, qd, qdd), dl.rnea(model, q, qd, qdd))
    assert np.array_equal(dl.crba(copy, q), dl.crba(model, q))
