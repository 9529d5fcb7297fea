"""Build a Pinocchio model equal to a dynlib Model, for use as an independent oracle in tests."""

import numpy as np
import pytest

pin = pytest.importorskip("pinocchio")

import dynlib as dl  # noqa: E402


def _pin_joint(joint):
    k = joint.kind
    if k == "revolute":
        return pin.JointModelRevoluteUnaligned(np.asarray(joint.axis, float))
    if k == "prismatic":
        return pin.JointModelPrismaticUnaligned(np.asarray(joint.axis, float))
    if k == "helical":
        return pin.JointModelHelicalUnaligned(np.asarray(joint.axis, float), float(joint.pitch))
    if k == "spherical":
        return pin.JointModelSpherical()
    if k == "translational":
        return pin.JointModelTranslation()
    if k == "free":
        return pin.JointModelFreeFlyer()
    raise ValueError(f"no Pinocchio joint for kind {k!r} (fixed joints are frames there)")


def to_pinocchio(model):
    """A pinocchio.Model with the same tree; dynlib body i is Pinocchio joint i + 1.

    Both libraries store q in the same order (quaternions x, y, z, w), velocities of
    spherical and free joints in the child frame, and 6-vectors linear part first.
    """
    pm = pin.Model()
    pm.gravity = pin.Motion(np.concatenate([model.gravity, np.zeros(3)]))
    for i, joint in enumerate(model.joints):
        T = model.placements[i]
        placement = pin.SE3(np.array(T[:3, :3], float), np.array(T[:3, 3], float))
        jid = pm.addJoint(model.parent[i] + 1, _pin_joint(joint), placement, model.names[i])
        m, c, I_c = dl.inertia_parameters(model.inertias[i])
        pm.appendBodyToJoint(jid, pin.Inertia(m, c, I_c), pin.SE3.Identity())
    return pm
