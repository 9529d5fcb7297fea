"""Read a robot from a URDF file: links with inertials, and revolute, continuous, prismatic and fixed joints.

URDF places each joint frame in its parent link's frame (``<origin xyz rpy>``), turns or slides
about ``<axis>`` in that frame, and makes the child link's frame the joint's moving frame:
exactly the model's convention, so ``placements[i]`` is the joint origin and the joint axis is
used as given.  A link's ``<inertial>`` gives its mass, centre of mass and rotational inertia
in a frame at ``<origin>`` in the link frame.

Fixed joints are merged: the child's inertia is added to its parent's (the URDF's ``world``
and tool-flange links disappear this way), and joints below it are re-placed in the parent's
frame.  The root link is fixed to the world at the identity, where its own inertia plays no
part, or floats on a free joint.  Inertial data is read as real files give it (point masses,
massless links, CAD inertias that break the triangle inequality, even negative principal
moments), with a warning about what no rigid body has.  Mimic joints (``q_j = r q_i + o``) are
read as independent joints, or with ``mimic="constraint"`` as independent joints together with
the :class:`JointCoupling` constraints that keep their coupling.  Joint limits, damping,
friction, visuals, collisions, transmissions and simulator tags are not part of rigid-body
dynamics and are ignored; floating and planar joints are rejected.

Chapter: *Inverse dynamics* (the 7-dof arm); the benchmark.
"""

from __future__ import annotations

import warnings
import xml.etree.ElementTree as ET
from importlib import resources
from os import PathLike
from pathlib import Path

import numpy as np

from ..core.backend import LARGEST_MAGNITUDE, check_magnitude, quoted_list
from ..spatial.algebra import motion_transform
from ..spatial.inertia import MOMENT_RTOL, assemble_inertia, principal_moments, transform_inertia, triangle_excess
from ..spatial.liegroup import homogeneous
from ..spatial.rotations import rotation_from_rpy
from .joints import free, prismatic, revolute
from .loops import JointCoupling
from .model import Model

__all__ = ["load_urdf", "kuka_iiwa14"]

URDF_GRAVITY = (0.0, 0.0, -9.81)  # URDF robots are described with z up
MIMIC_MODES = ("independent", "constraint")  # how load_urdf reads mimic joints


def _floats(text, count, what):
    try:
        values = [float(v) for v in text.split()]
    except ValueError:
        raise ValueError(f"{what} must be {count} numbers, got {text!r}") from None
    if len(values) != count or not np.all(np.isfinite(values)):
        raise ValueError(f"{what} must be {count} finite numbers, got {text!r}")
    return np.array(values)


def _origin(element, what):
    """The 4x4 pose of an ``<origin>`` child (identity when absent)."""
    origin = element.find("origin")
    if origin is None:
        return np.eye(4)
    xyz = _floats(origin.get("xyz", "0 0 0"), 3, f"{what} origin xyz")
    rpy = _floats(origin.get("rpy", "0 0 0"), 3, f"{what} origin rpy")
    return homogeneous(rotation_from_rpy(*rpy), xyz)


def _link_inertia(link, notes):
    """Spatial inertia of a link about its own frame (zeros for a link without ``<inertial>``).

    The door for a link's inertial data, which is used as given once it passes: a mass not
    negative, a symmetric rotational inertia.  A zero mass with a rotational inertia, a principal
    moment below ``-MOMENT_RTOL`` times the size of the inertia about the link frame (a point
    mass has none), and principal moments breaking the triangle inequality are kept as given;
    what is wrong with them is added to ``notes`` (for the UserWarning of :func:`load_urdf`).
    """
    inertial = link.find("inertial")
    name = link.get("name")
    if inertial is None:
        return np.zeros((6, 6))
    mass_element, inertia_element = inertial.find("mass"), inertial.find("inertia")
    if mass_element is None or inertia_element is None:
        raise ValueError(f"link {name!r}: <inertial> needs <mass> and <inertia>")
    mass = _floats(mass_element.get("value", ""), 1, f"link {name!r} mass")[0]
    if not 0 <= mass <= LARGEST_MAGNITUDE:
        raise ValueError(f"link {name!r}: mass must be zero or positive and at most {LARGEST_MAGNITUDE:g}, "
                         f"got {mass}")
    keys = ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")
    missing = [k for k in keys if inertia_element.get(k) is None]
    if missing:
        raise ValueError(f"link {name!r}: <inertia> is missing {', '.join(missing)}")
    xx, xy, xz, yy, yz, zz = (_floats(inertia_element.get(k), 1, f"link {name!r} inertia {k}")[0] for k in keys)
    I_frame = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
    T = _origin(inertial, f"link {name!r} inertial")
    R, c = T[:3, :3], T[:3, 3]
    check_magnitude(I_frame, f"link {name!r} inertia")
    check_magnitude(c, f"link {name!r} inertial origin xyz")
    I_c = R @ I_frame @ R.T
    # the size of the rotational inertia about the link frame: the tolerance is relative to it
    size = max(np.abs(I_c).max(), mass * (c @ c), np.finfo(float).tiny)
    moments = principal_moments(I_c, f"link {name!r}: the rotational inertia", scale=size, allow_negative=True)
    if mass == 0:
        if not np.any(I_c):
            return np.zeros((6, 6))  # a massless link (a sensor or contact frame)
        notes.append(f"link {name!r} has zero mass but a rotational inertia (principal moments "
                     f"{quoted_list(moments, 0, 3)}), which no rigid body has; used as given")
    excess = triangle_excess(moments)
    if moments[0] < -MOMENT_RTOL * size:
        notes.append(f"link {name!r}: the rotational inertia has a negative principal moment {moments[0]:.3g} "
                     f"(principal moments {quoted_list(moments, MOMENT_RTOL * size, 3)}), which no body has; used "
                     "as given")
    elif excess > 1e-12 * moments[2] + MOMENT_RTOL * size:
        notes.append(f"link {name!r}: the principal moments {quoted_list(moments, 0, 6)} break the triangle "
                     f"inequality I1 + I2 >= I3 by {excess:.3g} ({excess / moments[2]:.1%} of I3), which no rigid "
                     f"body does; used as given")
    return assemble_inertia(mass, c, I_c)


def _joint(element):
    """The dynlib joint of a URDF ``<joint>`` (None for a fixed one)."""
    kind, name = element.get("type"), element.get("name")
    if kind == "fixed":
        return None
    if kind not in ("revolute", "continuous", "prismatic"):
        raise ValueError(f"joint {name!r}: type {kind!r} is not supported "
                         f"(expected revolute, continuous, prismatic or fixed)")
    axis_element = element.find("axis")
    axis = np.array([1.0, 0.0, 0.0]) if axis_element is None else _floats(
        axis_element.get("xyz", ""), 3, f"joint {name!r} axis")
    if abs(np.linalg.norm(axis) - 1.0) > 1e-6:
        raise ValueError(f"joint {name!r}: the axis must be a unit vector, got {axis.tolist()}")
    return prismatic(axis) if kind == "prismatic" else revolute(axis)


def load_urdf(source, gravity=URDF_GRAVITY, floating_base=False, mimic="independent"):
    """Build a :class:`Model` from a URDF file or string.

    Parameters
    ----------
    source : str or path-like
        A path to a ``.urdf`` file, or the XML text itself.
    gravity : array_like, shape (3,)
        World gravity (default ``(0, 0, -9.81)``: URDF robots stand along +z).
    floating_base : bool
        False (default): the root link is fixed to the world at the identity.  True: a free joint
        connects the world to the root link (body 0, named after it, with ``q[:7]`` its position
        and unit quaternion ``x, y, z, w`` in the world and ``qd[:6]`` its twist in its own frame,
        as Pinocchio's ``JointModelFreeFlyer`` root joint).
    mimic : {"independent", "constraint"}
        How a movable joint ``j`` with ``<mimic joint="i" multiplier="r" offset="o"/>`` is read.
        ``q`` and ``qd`` hold an entry for it either way.  ``"independent"`` (default): as an
        independent joint, as Pinocchio's parser does without its mimic option, with a warning;
        keeping ``q_j = r q_i + o`` is left to the caller.  ``"constraint"``: the coupling is
        returned as a :class:`JointCoupling` for the constrained algorithms
        (:func:`constrained_forward_dynamics`, :func:`project_configuration`, ...).  A ``<mimic>``
        on a fixed joint is ignored (the joint does not move).

    Returns
    -------
    model : Model
        One body per movable joint, in depth-first order from the root, named after the
        child links; fixed children are merged into their parents.  Built with
        ``strict_inertias=False``: the inertias are used as the file gives them.
    constraints : list of JointCoupling
        Only with ``mimic="constraint"`` (the result is then the pair ``(model, constraints)``):
        one ``JointCoupling(j, i, r, o)`` per mimic joint, in the order of the bodies; empty for a
        file without mimic joints (the constrained algorithms need at least one constraint: use
        the unconstrained ones then).

    Raises
    ------
    ValueError
        Malformed XML, no link, several roots or a loop, unknown links, unsupported joint types,
        non-unit axes, no movable joint (with a fixed base), a negative mass, or an asymmetric
        rotational inertia (the message names the link or joint); with ``mimic="constraint"``, a
        mimic joint whose leader is not a movable joint of the file (unknown, or fixed) or whose
        multiplier or offset is not a number; a ``mimic`` other than ``"independent"`` or
        ``"constraint"``.

    Warns
    -----
    UserWarning
        At most two per file.  One lists the inertias used as given although no rigid body has
        them: links whose rotational inertia has a negative principal moment beyond round-off
        (with the moment), links whose principal moments break the triangle inequality
        ``I1 + I2 >= I3`` (with the amount; CAD data does this) and links with a rotational
        inertia but zero mass.  The other, with ``mimic="independent"``, lists the mimic joints
        read as independent joints.

    Notes
    -----
    Real files give point masses (a positive mass with zero rotational inertia) and massless
    links (sensor and contact frames): both are bodies.  A principal moment counts as zero down
    to ``-1e-10`` times the size of the link's rotational inertia about its own frame (the larger
    of the largest entry and ``m |c|^2``), so the round-off of a diagonal CAD inertia rotated into
    the link's axes (``-2.5e-22`` next to ``3.4``) is zero; a moment below that (Romeo's
    ``-0.0213``, TIAGo's antenna's ``-3.5e-8``) is used as given, with the warning, as Pinocchio
    does.  Models built by hand (``strict_inertias=True``) still refuse such inertias.  A movable
    joint whose subtree has no inertia along its motion (or a negative one) loads, and the
    algorithms that must divide by that inertia (:func:`aba`, solving with :func:`crba`) raise a
    ValueError naming the joint.

    Examples
    --------
    >>> text = '''<robot name="pendulum">
    ...   <link name="base"/>
    ...   <joint name="hinge" type="continuous">
    ...     <parent link="base"/><child link="rod"/><axis xyz="0 1 0"/>
    ...   </joint>
    ...   <link name="rod"><inertial><origin xyz="0 0 -0.5"/><mass value="2"/>
    ...     <inertia ixx="0.1" iyy="0.1" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
    ... </robot>'''
    >>> model = load_urdf(text)
    >>> model.names, model.nv, model.com[0].tolist()
    (('rod',), 1, [0.0, 0.0, -0.5])
    >>> load_urdf(text, floating_base=True).names
    ('base', 'rod')
    """
    if not isinstance(mimic, str) or mimic not in MIMIC_MODES:
        raise ValueError(f"mimic must be 'independent' or 'constraint', got {mimic!r}")
    if not isinstance(source, (str, PathLike)):
        raise TypeError(f"source must be a path or the URDF text, got {type(source).__name__}")
    if not isinstance(floating_base, (bool, np.bool_)):
        raise TypeError(f"floating_base must be True or False, got {floating_base!r}")
    text = str(source)
    if not text.strip():
        raise ValueError("source is empty: expected a path or the URDF text")
    if not text.lstrip().startswith("<"):
        text = Path(source).read_text()
    try:
        robot = ET.fromstring(text)
    except ET.ParseError as exc:
        raise ValueError(f"not valid URDF XML: {exc}") from None
    links = {link.get("name"): link for link in robot.findall("link")}
    if not links:
        raise ValueError(f"the URDF has no <link> (its root element is <{robot.tag}>, expected <robot> with links)")
    joints = robot.findall("joint")
    child_joint, children = {}, {name: [] for name in links}
    for joint in joints:
        parent, child = joint.find("parent"), joint.find("child")
        if parent is None or child is None:
            raise ValueError(f"joint {joint.get('name')!r} needs <parent> and <child>")
        p, c = parent.get("link"), child.get("link")
        for link_name in (p, c):
            if link_name not in links:
                raise ValueError(f"joint {joint.get('name')!r} refers to unknown link {link_name!r}")
        if c in child_joint:
            raise ValueError(f"link {c!r} is the child of two joints (URDF describes trees)")
        child_joint[c] = joint
        children[p].append(c)
    roots = [name for name in links if name not in child_joint]
    if len(roots) != 1:
        raise ValueError(f"a URDF tree has one root link, found {roots or 'none (a loop)'}")

    parent, body_joints, placements, inertias, names, notes, mimics = [], [], [], [], [], [], []
    joint_body, fixed_joints = {}, set()  # URDF joint name -> body index; the names of fixed joints

    def add_body(body, joint, placement, name):
        parent.append(body)
        body_joints.append(joint)
        placements.append(placement)
        inertias.append(np.zeros((6, 6)))
        names.append(name)
        return len(names) - 1

    def visit(link_name, body, T_in_body):
        """Add link_name, rigidly attached at T_in_body to body (-1: the world), and its subtree."""
        inertia = _link_inertia(links[link_name], notes)
        if body >= 0:
            inertias[body] = inertias[body] + transform_inertia(
                motion_transform(T_in_body[:3, :3], T_in_body[:3, 3]), inertia)
        for child in children[link_name]:
            joint = child_joint[child]
            T_joint = T_in_body @ _origin(joint, f"joint {joint.get('name')!r}")
            kind = _joint(joint)
            if kind is None:
                fixed_joints.add(joint.get("name"))
                visit(child, body, T_joint)
                continue
            joint_body[joint.get("name")] = child_body = add_body(body, kind, T_joint, child)
            if joint.find("mimic") is not None:
                mimics.append((joint, child_body))
            visit(child, child_body, np.eye(4))

    visit(roots[0], add_body(-1, free(), np.eye(4), roots[0]) if floating_base else -1, np.eye(4))
    if not names:
        raise ValueError("the URDF has no movable joint: expected at least one revolute, continuous or prismatic "
                         "joint, or floating_base=True")
    couplings = [_coupling(joint, body, joint_body, fixed_joints) for joint, body in mimics] \
        if mimic == "constraint" else None
    if notes:
        warnings.warn("URDF inertias used as given: " + "; ".join(notes), UserWarning, stacklevel=2)
    if mimics and couplings is None:
        described = [f"{joint.get('name')!r} (mimics {joint.find('mimic').get('joint')!r}, multiplier "
                     f"{joint.find('mimic').get('multiplier', '1')}, offset {joint.find('mimic').get('offset', '0')})"
                     for joint, _ in mimics]
        warnings.warn(f"{len(mimics)} mimic joint{'s' * (len(mimics) > 1)} read as independent joints (their "
                      f"coupling q_j = multiplier q_i + offset is not kept): "
                      + ", ".join(described), UserWarning, stacklevel=2)
    model = Model(parent, body_joints, np.array(placements), np.array(inertias), gravity=gravity, names=names,
                  strict_inertias=False)
    return model if couplings is None else (model, couplings)


def _coupling(joint, body, joint_body, fixed_joints):
    """The :class:`JointCoupling` of the ``<mimic>`` of a movable joint read as body ``body``."""
    name, element = joint.get("name"), joint.find("mimic")
    leader = element.get("joint")
    if leader not in joint_body:
        why = "a fixed joint, which has no coordinate" if leader in fixed_joints else "not a joint of the file"
        raise ValueError(f"joint {name!r} mimics joint {leader!r}, {why}: a mimic joint's leader must be a movable "
                         f"(revolute, continuous or prismatic) joint")
    multiplier = _floats(element.get("multiplier", "1"), 1, f"joint {name!r} mimic multiplier")[0]
    offset = _floats(element.get("offset", "0"), 1, f"joint {name!r} mimic offset")[0]
    return JointCoupling(body, joint_body[leader], multiplier, offset)


def kuka_iiwa14():
    """The KUKA LBR iiwa 14 R820, a 7-dof arm, from the URDF shipped with dynlib.

    Kinematics and inertial parameters as published for the arm's ROS description
    (``iiwa_description``, ``iiwa14.urdf.xacro``); no meshes.  The flange (45 mm past joint 7)
    is a fixed link, merged into link 7.

    Returns
    -------
    Model
        Seven revolute joints, gravity along -z.

    Examples
    --------
    >>> arm = kuka_iiwa14()
    >>> arm.nv, round(float(arm.mass.sum()), 2)
    (7, 17.5)
    """
    return load_urdf(resources.files("dynlib.multibody").joinpath("data", "iiwa14.urdf").read_text())
