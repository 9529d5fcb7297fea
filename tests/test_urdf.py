"""The URDF reader: the shipped 7-dof arm against Pinocchio's own URDF parser, merging of fixed
links against a hand-built model, and clear errors for what it does not read."""

import warnings
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
    from pinocchio_bridge import pin

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


# -- real inertial data, a floating base, mimic joints ------------------------------------------

def arm(rod_inertial, tip_inertial="", extra=""):
    """A two-link arm: ``rod`` on a revolute joint, ``tip`` fixed to it (both inertials given as XML)."""
    return f"""<robot name="arm">
  <link name="base"><inertial><mass value="3"/>
    <inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="rod"/>
    <origin xyz="0 0 0.3" rpy="0.1 0 0"/><axis xyz="0 1 0"/></joint>
  <link name="rod">{rod_inertial}</link>
  <joint name="flange" type="fixed"><parent link="rod"/><child link="tip"/><origin xyz="0 0 -1"/></joint>
  <link name="tip">{tip_inertial}</link>{extra}
</robot>"""


def inertial(mass, moments=(0.0, 0.0, 0.0), products=(0.0, 0.0, 0.0), xyz="0 0 -0.5", rpy="0 0 0"):
    (xx, yy, zz), (xy, xz, yz) = moments, products
    return (f'<inertial><origin xyz="{xyz}" rpy="{rpy}"/><mass value="{mass}"/><inertia ixx="{xx}" iyy="{yy}" '
            f'izz="{zz}" ixy="{xy}" ixz="{xz}" iyz="{yz}"/></inertial>')


ROD = inertial(2.0, (0.2, 0.21, 0.02))


def test_point_masses_and_massless_links_are_bodies():
    # a point mass on the flange (UR's ee_link, panda_link8) merges into the rod; a massless link is nothing
    model = dl.load_urdf(arm(ROD, inertial(0.5, xyz="0 0 0")))
    expected = dl.spatial_inertia(2.0, [0, 0, -0.5], np.diag([0.2, 0.21, 0.02]))
    expected[:3, :3] += 0.5 * np.eye(3)
    expected[:3, 3:] -= 0.5 * dl.skew([0, 0, -1.0])
    expected[3:, :3] += 0.5 * dl.skew([0, 0, -1.0])
    expected[3:, 3:] -= 0.5 * dl.skew([0, 0, -1.0]) @ dl.skew([0, 0, -1.0])
    assert_close(model.inertias[0], expected)
    assert_close(dl.load_urdf(arm(ROD, inertial(0.0, xyz="0.2 0 0"))).inertias[0], dl.load_urdf(arm(ROD)).inertias[0])
    # a body that is a point mass alone swings like a pendulum bob: H = m l^2
    bob = dl.load_urdf(arm(inertial(2.0, xyz="0 0 -1.5")))
    assert bob.strict_inertias is False
    assert_close(dl.crba(bob, [0.3]), [[2.0 * 1.5**2]])


def test_round_off_of_a_rotated_cad_inertia_counts_as_zero():
    # Go1's base: a diagonal inertia turned by rpy, leaving a principal moment of -2.5e-22 next to 3.4
    rotated = inertial(5.0, (3.4, 1e-30, 3.4), rpy="0.3 1.1 -0.7")
    model = dl.load_urdf(arm(rotated))
    assert np.linalg.eigvalsh(model.inertia_com[0]).min() > -1e-12


def test_an_inertia_breaking_the_triangle_inequality_is_read_with_a_warning():
    text = arm(inertial(2.0, (0.001, 0.001, 0.01)))  # PR2's sensor_mount_link
    with pytest.warns(UserWarning, match=r"link 'rod'.*triangle inequality I1 \+ I2 >= I3 by 0.008 \(80.0% of I3\)"):
        model = dl.load_urdf(text)
    assert_close(model.inertia_com[0], np.diag([0.001, 0.001, 0.01]))
    # the strict check stays for inertias made by hand
    with pytest.raises(ValueError, match="triangle inequality"):
        dl.spatial_inertia(2.0, [0, 0, -0.5], np.diag([0.001, 0.001, 0.01]))
    with pytest.raises(ValueError, match=r"inertias\[0\].*triangle inequality"):
        dl.Model(model.parent, model.joints, model.placements, model.inertias, model.gravity, model.names)
    with pytest.raises(ValueError, match=r"inertias\[0\].*positive definite"):
        dl.Model((-1,), (dl.revolute(),), np.eye(4)[None], dl.load_urdf(arm(inertial(2.0))).inertias)


def test_a_rotational_inertia_without_mass_is_read_with_a_warning():
    # Bolt's feet: mass 0, moments 5e-7
    with pytest.warns(UserWarning, match=r"link 'tip' has zero mass but a rotational inertia"):
        model = dl.load_urdf(arm(ROD, inertial(0.0, (5e-7, 8e-7, 5e-7))))
    assert model.mass[0] == pytest.approx(2.0)
    with pytest.warns(UserWarning, match=r"link 'rod' has zero mass"):
        flywheel = dl.load_urdf(arm(inertial(0.0, (1e-3, 2e-3, 1e-3))))  # a body that is such a link alone
    assert flywheel.mass[0] == 0 and flywheel.strict_inertias is False
    assert_close(dl.crba(flywheel, [0.4]), [[2e-3]])


@pytest.mark.parametrize(
    "rod, message",
    [
        (inertial(-1.0, (0.1, 0.1, 0.1)), r"link 'rod': mass must be zero or positive .*got -1.0"),
        (inertial(1e50, (0.1, 0.1, 0.1)), r"link 'rod': mass must be .* at most 1e\+40"),
    ],
)
def test_inertial_data_no_body_has_is_refused(rod, message):
    with pytest.raises(ValueError, match=message):
        dl.load_urdf(arm(rod))


ROMEO_BODY = inertial(2.0, (0.0564204, 0.0521042, 0.021185), (7.26322e-05, -0.0575115, -3.39086e-05))


def test_a_negative_principal_moment_is_read_with_a_warning_and_refused_by_hand():
    # Romeo's body (romeo_laas_small.urdf): a principal moment of -0.0213, which Pinocchio reads as given too;
    # the warning joins it to the other inertias used as given (here a tip breaking the triangle inequality)
    tip = inertial(0.5, (0.001, 0.001, 0.01), xyz="0 0 0")
    with pytest.warns(UserWarning, match=r"URDF inertias used as given: link 'rod': the rotational inertia has a "
                                         r"negative principal moment -0.0213 \(principal moments \[-0.0213, 0.0521, "
                                         r"0.099\]\), which no body has; used as given; link 'tip': .* triangle"):
        model = dl.load_urdf(arm(ROMEO_BODY, tip))
    with pytest.warns(UserWarning, match="negative principal moment"):
        alone = dl.load_urdf(arm(ROMEO_BODY))  # the rod is its link alone: its inertia is the file's
    assert_close(np.linalg.eigvalsh(alone.inertia_com[0]), [-0.0213, 0.0521, 0.099], rtol=2e-3)
    q, qd = np.array([0.4]), np.array([-0.7])
    assert_close(dl.rnea(model, q, qd, qd), dl.crba(model, q) @ qd + dl.bias_forces(model, q, qd), rtol=1e-12)
    # a model made by hand keeps refusing it, and a negative mass stays an error in a file
    with pytest.raises(ValueError, match=r"inertias\[0\].*must be positive definite; its principal moments are "
                                         r"\[-0.0213, 0.0521, 0.099\]"):
        dl.Model(alone.parent, alone.joints, alone.placements, alone.inertias, alone.gravity, alone.names)
    # built as a file's model (strict_inertias=False), it is used as given, without a word from Model itself
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        as_read = dl.Model(alone.parent, alone.joints, alone.placements, alone.inertias, strict_inertias=False)
    assert np.array_equal(as_read.inertia_com, alone.inertia_com)
    with pytest.raises(ValueError, match=r"link 'rod': mass must be zero or positive"):
        dl.load_urdf(arm(ROMEO_BODY.replace('<mass value="2.0"/>', '<mass value="-2.0"/>')))


def test_a_joint_with_no_inertia_along_its_motion_stops_the_algorithms_that_divide_by_it():
    # a massless link on a revolute joint (Romeo's last finger): it loads, rnea runs, aba and solving refuse
    text = arm(ROD).replace("</robot>", """<joint name="finger" type="revolute"><parent link="tip"/>
      <child link="nail"/><axis xyz="0 0 1"/></joint><link name="nail"/></robot>""")
    model = dl.load_urdf(text)
    assert model.names == ("rod", "nail") and model.mass[1] == 0
    q, qd = np.array([0.3, 0.2]), np.array([0.1, -0.4])
    assert np.all(np.isfinite(dl.rnea(model, q, qd, qd)))
    with pytest.raises(ValueError, match=r"D = s\^T IA s of joint 1 has rank 0, expected 1"):
        dl.aba(model, q, qd, qd)
    with pytest.raises(ValueError, match="not positive definite"):
        dl.forward_dynamics_crba(model, q, qd, qd)


def test_a_floating_base_is_a_free_joint_like_pinocchios_free_flyer(rng):
    from pinocchio_bridge import pin, pinocchio_indices

    text = PENDULUM.format(kind="continuous", axis="0 1 0")  # Pinocchio's q holds (cos, sin) of its angle
    model = dl.load_urdf(text, floating_base=True)
    assert model.names == ("world", "rod") and [j.kind for j in model.joints] == ["free", "revolute"]
    assert model.mass[0] == pytest.approx(9.0)  # the base, fixed to the world link, rides on the free joint
    assert_close(model.placements[0], np.eye(4))
    reference = pin.buildModelFromXML(text, pin.JointModelFreeFlyer())
    data = reference.createData()
    P, state = pinocchio_indices(model, reference, ["root_joint", "hinge"])
    for _ in range(3):
        q, qd, qdd = dl.random_configuration(model, rng), dl.random_velocity(model, rng), dl.random_velocity(model, rng)
        q_pin, v_pin = state(q, qd)
        a_pin = np.zeros(reference.nv)
        a_pin[P] = qdd
        assert_close(dl.rnea(model, q, qd, qdd), pin.rnea(reference, data, q_pin, v_pin, a_pin)[P])
        assert_close(dl.aba(model, q, qd, qdd), pin.aba(reference, data, q_pin, v_pin, a_pin)[P], rtol=1e-9)
    # a robot with no movable joint floats, and stands only if told to
    with pytest.raises(ValueError, match="no movable joint: expected at least one .* or floating_base=True"):
        dl.load_urdf("<robot name='box'><link name='box'/></robot>")
    assert dl.load_urdf("<robot name='box'><link name='box'/></robot>", floating_base=True).nv == 6
    with pytest.raises(TypeError, match="floating_base must be True or False, got 'yes'"):
        dl.load_urdf(text, floating_base="yes")


def test_mimic_joints_are_read_as_independent_joints_with_a_warning():
    text = PENDULUM.format(kind="revolute", axis="0 1 0").replace(
        "</robot>", """<joint name="finger" type="prismatic"><parent link="weight"/><child link="pad"/>
        <axis xyz="1 0 0"/><mimic joint="hinge" multiplier="0.5" offset="0.1"/></joint>
        <link name="pad">""" + inertial(0.1, (1e-4, 1e-4, 1e-4), xyz="0 0 0") + "</link></robot>")
    with pytest.warns(UserWarning, match=r"1 mimic joint read as independent joints .* is not kept\): "
                                         r"'finger' \(mimics 'hinge', multiplier 0.5, offset 0.1\)"):
        model = dl.load_urdf(text)
    assert model.names == ("rod", "pad") and model.nv == 2


MIMIC = PENDULUM.format(kind="revolute", axis="0 1 0").replace("</robot>", """
  <joint name="finger" type="prismatic"><parent link="weight"/><child link="pad"/>
    <axis xyz="1 0 0"/><mimic joint="{leader}" {factors}/></joint>
  <link name="pad">""" + inertial(0.1, (1e-4, 1e-4, 1e-4), xyz="0 0 0") + """</link>
  <joint name="thumb" type="continuous"><parent link="pad"/><child link="nail"/><axis xyz="0 0 1"/>
    <mimic joint="finger" multiplier="-3"/></joint>
  <link name="nail">""" + inertial(0.1, (1e-4, 1e-4, 1e-4), xyz="0 0.1 0") + """</link>
  <joint name="glued" type="fixed"><parent link="nail"/><child link="cap"/><mimic joint="hinge"/></joint>
  <link name="cap"/>
</robot>""")


def test_mimic_joints_are_read_as_couplings_on_request(rng):
    text = MIMIC.format(leader="hinge", factors='multiplier="0.5" offset="0.1"')
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning: the couplings are kept
        model, couplings = dl.load_urdf(text, mimic="constraint")
    assert model.names == ("rod", "pad", "nail") and model.nv == 3
    # the mimic on the fixed joint 'glued' is ignored; the chained one (thumb mimics finger) is kept as given
    assert [(c.joint, c.leader, c.multiplier, c.offset) for c in couplings] == [(1, 0, 0.5, 0.1), (2, 1, -3.0, 0.0)]
    q = dl.project_configuration(model, rng.normal(size=3), couplings)
    assert abs(q[1] - 0.5 * q[0] - 0.1) <= 1e-12 and abs(q[2] + 3 * q[1]) <= 1e-12
    # read independently, the same file gives the same model
    with pytest.warns(UserWarning, match="2 mimic joints read as independent joints"):
        independent = dl.load_urdf(text)
    assert np.array_equal(independent.inertias, model.inertias) and independent.names == model.names
    # a file without mimic joints gives no coupling
    assert dl.load_urdf(arm(ROD), mimic="constraint")[1] == []


@pytest.mark.parametrize(
    "leader, factors, message",
    [
        ("index_q1", "", r"joint 'finger' mimics joint 'index_q1', not a joint of the file: a mimic joint's "
                         r"leader must be a movable \(revolute, continuous or prismatic\) joint"),  # alex_psyonic_hands
        ("tool", "", r"joint 'finger' mimics joint 'tool', a fixed joint, which has no coordinate"),
        ("hinge", 'multiplier="half"', r"joint 'finger' mimic multiplier must be 1 numbers, got 'half'"),
        ("hinge", 'offset="nan"', r"joint 'finger' mimic offset must be 1 finite numbers, got 'nan'"),
    ],
)
def test_a_mimic_that_cannot_be_kept_is_refused_by_name(leader, factors, message):
    text = MIMIC.format(leader=leader, factors=factors)
    with pytest.raises(ValueError, match=message):
        dl.load_urdf(text, mimic="constraint")
    with pytest.warns(UserWarning, match="mimic joints read as independent joints"):
        dl.load_urdf(text)  # read as independent joints, the coupling is not needed


@pytest.mark.parametrize("mimic", ["constraints", True, None])
def test_an_unknown_mimic_mode_is_refused(mimic):
    with pytest.raises(ValueError, match=f"mimic must be 'independent' or 'constraint', got {mimic!r}"):
        dl.load_urdf(arm(ROD), mimic=mimic)


def test_meshes_transmissions_simulator_tags_and_unknown_tags_are_ignored():
    extra = """
  <material name="grey"><color rgba="0.5 0.5 0.5 1"/></material>
  <transmission name="t1"><type>transmission_interface/SimpleTransmission</type>
    <joint name="shoulder"><hardwareInterface>EffortJointInterface</hardwareInterface></joint>
    <actuator name="m1"><mechanicalReduction>100</mechanicalReduction></actuator></transmission>
  <gazebo reference="rod"><mu1>0.2</mu1><sensor name="cam" type="camera"><update_rate>30</update_rate></sensor></gazebo>
  <sensor name="imu" update_rate="100"><parent link="rod"/><imu/></sensor>
  <ros2_control name="hw" type="system"><hardware><plugin>mock</plugin></hardware></ros2_control>
  <anything_else/>"""
    rod = ROD.replace("</inertial>", """</inertial>
    <visual><geometry><mesh filename="package://arm_description/meshes/rod.dae" scale="1 1 1"/></geometry></visual>
    <collision><geometry><mesh filename="package://arm_description/meshes/rod.stl"/></geometry></collision>""")
    plain, decorated = dl.load_urdf(arm(ROD)), dl.load_urdf(arm(rod, extra=extra))
    assert decorated.names == plain.names
    assert_close(decorated.inertias, plain.inertias)
    assert_close(decorated.placements, plain.placements)


def test_a_robot_without_links_is_refused_by_name():
    # example-robot-data's ur3.urdf is an empty <robot> (Pinocchio refuses it too)
    with pytest.raises(ValueError, match=r"the URDF has no <link> \(its root element is <robot>"):
        dl.load_urdf("<robot/>")
