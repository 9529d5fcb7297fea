"""The URDF reader: the shipped 7-dof arm against Pinocchio's own URDF parser, merging of fixed
links against a hand-built model, and clear errors for what it does not read."""

from importlib import resources

import numpy as np
import pytest

import dynlib as dl

from conftest import assert_close

PENDULUM = """<robot name="p">
  <link name="world"/>
  <joint name="mount" type="fixed"><parent link="world"/><child link="base"/>
    <origin xyz="0 0 1" rpy="0 0 0.3"/></joint>
  <link name="base"><inertial><mass value="9"/>
    <inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="hinge" type="{kind}"><parent link="base"/><child link="rod"/>
    <origin xyz="0.1 0 0" rpy="0.2 -0.1 0.4"/><axis xyz="{axis}"/></joint>
  <link name="rod"><inertial><origin xyz="0 0 -0.5" rpy="0.3 0 0"/><mass value="2"/>
    <inertia ixx="0.2" iyy="0.21" izz="0.02" ixy="0.001" ixz="0" iyz="0"/></inertial></link>
  <joint name="tool" type="fixed"><parent link="rod"/><child link="weight"/>
    <origin xyz="0 0 -1" rpy="0 0.5 0"/></joint>
  <link name="weight"><inertial><mass value="0.5"/>
    <inertia ixx="0.01" iyy="0.01" izz="0.02" ixy="0" ixz="0" iyz="0"/></inertial></link>
</robot>"""


def test_fixed_links_merge_into_the_moving_body_they_hang_from():
    model = dl.load_urdf(PENDULUM.format(kind="revolute", axis="0 1 0"))
    assert model.names == ("rod",) and model.nv == 1
    expected_placement = dl.homogeneous(dl.rotation_from_rpy(0, 0, 0.3), [0, 0, 1]) @ dl.homogeneous(
        dl.rotation_from_rpy(0.2, -0.1, 0.4), [0.1, 0, 0])
    assert_close(model.placements[0], expected_placement)
    R_rod, R_weight = dl.rotation_from_rpy(0.3, 0, 0), dl.rotation_from_rpy(0, 0.5, 0)
    rod = dl.spatial_inertia(2.0, [0, 0, -0.5], R_rod @ np.array([[0.2, 0.001, 0], [0.001, 0.21, 0], [0, 0, 0.02]])
                             @ R_rod.T)
    weight = dl.spatial_inertia(0.5, [0, 0, -1], R_weight @ np.diag([0.01, 0.01, 0.02]) @ R_weight.T)
    assert_close(model.inertias[0], rod + weight)
    assert model.mass[0] == pytest.approx(2.5)


def test_rpy_is_roll_then_pitch_then_yaw_about_fixed_axes():
    roll, pitch, yaw = 0.3, -0.7, 1.1
    R = dl.rotation_from_rpy(roll, pitch, yaw)
    Rx, Ry, Rz = (dl.rotation_about_axis(a, t) for a, t in (([1, 0, 0], roll), ([0, 1, 0], pitch), ([0, 0, 1], yaw)))
    assert_close(R, Rz @ Ry @ Rx)


def test_the_arm_matches_pinocchios_own_urdf_parser(rng):
    pin = pytest.importorskip("pinocchio")
    text = resources.files("dynlib.multibody").joinpath("data", "iiwa14.urdf").read_text()
    reference = pin.buildModelFromXML(text)
    reference.gravity = pin.Motion(np.array([0, 0, -9.81, 0, 0, 0]))
    data = reference.createData()
    arm = dl.kuka_iiwa14()
    assert arm.nv == reference.nv == 7
    for _ in range(5):
        q, qd, qdd = (rng.uniform(-2, 2, 7) for _ in range(3))
        assert_close(dl.rnea(arm, q, qd, qdd), pin.rnea(reference, data, q, qd, qdd), rtol=1e-10)
        assert_close(dl.aba(arm, q, qd, qdd), pin.aba(reference, data, q, qd, qdd), rtol=1e-9)
        H = pin.crba(reference, data, q)
        assert_close(dl.crba(arm, q), np.triu(H) + np.triu(H, 1).T, rtol=1e-10)


def test_prismatic_and_continuous_joints_read_as_such():
    slider = dl.load_urdf(PENDULUM.format(kind="prismatic", axis="1 0 0"))
    assert slider.joints[0].kind == "prismatic"
    assert dl.load_urdf(PENDULUM.format(kind="continuous", axis="0 0 1")).joints[0].kind == "revolute"


@pytest.mark.parametrize(
    "text, message",
    [
        ("<robot><link name='a'>", "not valid URDF XML"),
        (PENDULUM.format(kind="floating", axis="0 0 1"), "type 'floating' is not supported"),
        (PENDULUM.format(kind="revolute", axis="0 0 2"), "the axis must be a unit vector"),
        (PENDULUM.format(kind="revolute", axis="0 0"), "axis must be 3 finite numbers"),
        (PENDULUM.format(kind="revolute", axis="0 1 0").replace('child link="weight"', 'child link="nowhere"'),
         "unknown link 'nowhere'"),
        (PENDULUM.format(kind="revolute", axis="0 1 0").replace('<mass value="2"/>', '<mass value="-2"/>'),
         "link 'rod'"),
        (PENDULUM.format(kind="revolute", axis="0 1 0").replace('<link name="world"/>',
                                                                 '<link name="world"/><link name="stray"/>'),
         "one root link"),
        ("<robot><link name='a'/></robot>", "no movable joint"),
    ],
)
def test_what_it_cannot_read_is_refused_with_a_clear_message(text, message):
    with pytest.raises(ValueError, match=message):
        dl.load_urdf(text)


def test_a_file_path_is_read(tmp_path):
    path = tmp_path / "pendulum.urdf"
    path.write_text(PENDULUM.format(kind="revolute", axis="0 1 0"))
    assert dl.load_urdf(path).names == ("rod",)
