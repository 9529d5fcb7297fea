"""Build a Pinocchio model equal to a dynlib Model, for use as an independent oracle in tests.

Pinocchio (pip ``pin``) is in ``requirements-test.txt``: without it the tests that compare with it
fail to import, instead of being skipped, so that ``make test`` cannot pass without the oracle.
"""

import numpy as np
import pinocchio as pin

import dynlib as dl


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


def pinocchio_indices(model, pm, joint_names):
    """Where each dynlib body's entries sit in a Pinocchio model of the same robot (matched by joint name).

    ``joint_names[i]`` is the name of body ``i``'s joint in ``pm`` (Pinocchio's parser names a
    joint after the URDF's, and a floating root ``root_joint``).  Returns ``(P, state)``: dynlib's
    ``qd`` is Pinocchio's ``v[P]``, and ``state(q, qd)`` gives Pinocchio's ``(q, v)``.  Both libraries
    store free joints alike (position, quaternion x, y, z, w; child-frame twist, linear first);
    Pinocchio's continuous joints hold ``(cos, sin)`` of the angle.
    """
    ids = [pm.getJointId(name) for name in joint_names]
    missing = [name for name, jid in zip(joint_names, ids) if jid >= pm.njoints]
    if missing:
        raise ValueError(f"no Pinocchio joint named {missing}")
    pjoints = [pm.joints[jid] for jid in ids]
    P = np.concatenate([np.arange(j.idx_v, j.idx_v + j.nv) for j in pjoints]).astype(int)

    def state(q, qd):
        q_pin, v_pin = np.zeros(pm.nq), np.zeros(pm.nv)
        for i, j in enumerate(pjoints):
            qi = q[model.q_slices[i]]
            if j.nq == 2 and model.joints[i].nq == 1:  # a continuous joint: (cos, sin) in Pinocchio
                qi = np.array([np.cos(qi[0]), np.sin(qi[0])])
            q_pin[j.idx_q:j.idx_q + j.nq] = qi
        v_pin[P] = qd
        return q_pin, v_pin

    return P, state
