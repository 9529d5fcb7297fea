"""The URDF reader on real robots: every file of the ``example-robot-data`` package (UR, Panda,
Kinova, xArm, Baxter, PR2, TIAGo, Talos, iCub, Romeo, Solo, Go1, Go2, A1, B1, ANYmal, HyQ, the
Allegro hand, SO-100, ...), with a fixed and with a floating base, against Pinocchio's own URDF
parser: ``rnea``, ``crba`` and ``aba`` at random states, joints matched by name.

A file dynlib refuses is listed in ``REFUSED`` with the reason, and the test checks that it is
refused for that reason.  The package (about 130 MB, test-only: ``requirements-test.txt``) ships
its robots as data without a Python module, so it is found through its installed metadata; without
it the module is skipped.
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
    pytest.skip("example-robot-data is not installed (it is in requirements-test.txt)", allow_module_level=True)

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
    # rotational inertias with a negative principal moment, far beyond round-off: no body has them
    "romeo_description/urdf/romeo_laas_small.urdf": Refusal(
        BOTH, r"link 'body': the rotational inertia must be positive semi-definite .*\[-0.0213, ", pinocchio=True),
    **{f"tiago_description/robots/{name}.urdf": Refusal(
        BOTH, r"link 'base_antenna_left_link': the rotational inertia must be positive semi-definite .*\[-3.53e-08",
        pinocchio=True) for name in ("tiago", "tiago_dual", "tiago_no_hand")},
}
#: file -> why dynlib's aba refuses its states: joints with no inertia along their motion
#: (Pinocchio's aba returns NaN there); rnea and crba are still compared
NO_FORWARD_DYNAMICS = {
    # Romeo's 24 finger and thumb links (mimic joints) have no <inertial>
    "romeo_description/urdf/romeo.urdf": r"D = s\^T IA s of joint \d+ has rank 0, expected 1 .* carry no inertia",
}


def test_the_package_ships_the_robots_the_issue_names():
    assert len(FILES) >= 60
    for robot in ("ur5_robot", "panda", "kinova", "xarm7", "baxter", "pr2", "tiago", "talos_full_v2", "icub",
                  "romeo", "solo12", "go1", "go2", "a1", "b1", "anymal", "hyq_no_sensors", "allegro_right_hand",
                  "so100"):
        assert any(Path(name).stem == robot for name in FILES), robot
    assert set(REFUSED) | set(NO_FORWARD_DYNAMICS) <= set(FILES)


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
