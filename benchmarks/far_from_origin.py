"""How much the joint-space results change when the whole system is moved far from the world origin.

Usage::

    .venv/bin/python benchmarks/far_from_origin.py            # Solo12 (free-floating), the iiwa, a random tree
    .venv/bin/python benchmarks/far_from_origin.py --rounded  # root positions as drawn, rounded when moved

Every algorithm is run on a system and on the same system moved by ``d`` (its base, and with it
every body, external wrench, contact line and loop anchor); the table gives
``max |x(d) - x(0)| / max |x(0)|`` of each joint-space result (or scalar) for ``|d|`` = 1e2, 1e4 and
1e6 m.  In exact arithmetic every entry is zero.  Solo12 comes from the copy of example-robot-data's
file shipped with dynlib (``dynlib/multibody/data/solo12.urdf``), on a free-floating base moved through
its configuration; the iiwa and the tree are moved through their root placements.  Root positions and
external wrenches are dyadic numbers, the moves whole numbers of metres and the contact direction an
axis, so that the moved inputs are exact and every difference is the algorithms' own.  With
``--rounded`` the root positions are left as drawn: moving them rounds them (to about 1e-10 m at
1e6 m), and the results change by what that rounding of the inputs implies, against the external
wrenches and anchors that stay where they were.
"""

from __future__ import annotations

import pathlib
import sys

import numpy as np

import dynlib as dl

DISTANCES = (1e2, 1e4, 1e6)
DIRECTION = np.array([0.6, -0.48, 0.64])  # a unit vector, so that every coordinate moves


def relative_change(far, near):
    """``max |far - near| / max |near|``; 0 when both raised the same error, infinite when one of them raised."""
    if isinstance(far, Exception) or isinstance(near, Exception):
        same = isinstance(far, Exception) and isinstance(near, Exception) and str(far) == str(near)
        return 0.0 if same else float("inf")
    far, near = np.asarray(far, float), np.asarray(near, float)
    scale = max(np.abs(near).max(initial=0.0), np.finfo(float).tiny)
    return float(np.abs(far - near).max(initial=0.0) / scale)


def dyadic(x, bits=10):
    """``x`` rounded to a multiple of 2**-bits: such numbers move by whole metres without rounding."""
    return np.round(np.asarray(x) * 2.0**bits) / 2.0**bits


def exactly_movable(model, q):
    """The model and configuration with the root positions rounded to dyadic numbers (:func:`dyadic`), so
    that moving them by whole metres is exact: the far system is then exactly the near one, moved."""
    placements = model.placements.copy()
    q = q.copy()
    for i, parent in enumerate(model.parent):
        if parent < 0:
            placements[i, :3, 3] = dyadic(placements[i, :3, 3])
            start, kind = model.q_slices[i].start, model.joints[i].kind
            if kind in ("free", "translational"):  # the joint's own translation: exact in the world when
                turned = not np.array_equal(placements[i, :3, :3], np.eye(3))  # the placement does not turn it
                q[start:start + 3] = 0.0 if turned else dyadic(q[start:start + 3])
            elif kind in ("prismatic", "helical"):
                q[start] = 0.0
    return dl.Model(model.parent, model.joints, placements, model.inertias, model.gravity, model.names,
                    model.strict_inertias), q


def moved(model, q, d):
    """The model and configuration of the same system moved by ``d``: roots on free joints through
    ``q``, the other roots through their placements."""
    placements = model.placements.copy()
    q = q.copy()
    for i, parent in enumerate(model.parent):
        if parent >= 0:
            continue
        R0 = placements[i, :3, :3]
        if model.joints[i].kind == "free" and np.array_equal(R0, np.eye(3)):
            q[model.q_slices[i].start:model.q_slices[i].start + 3] += d
        else:
            placements[i, :3, 3] += d
    return dl.Model(model.parent, model.joints, placements, model.inertias, model.gravity, model.names,
                    model.strict_inertias), q


def moved_wrenches(f_ext, d):
    f_ext = f_ext.copy()
    f_ext[:, 3:] += np.cross(d, f_ext[:, :3])
    return f_ext


def chain_of(model):
    """The first bodies of ``model`` that form a serial chain (for the chain-only algorithms)."""
    k = 1
    while k < model.n_bodies and model.parent[k] == k - 1:
        k += 1
    return model.first_bodies(k)


def attempt(out, name, call):
    try:
        out[name] = call()
    except ValueError as err:
        out[name] = err


def results(model, q, qd, qdd, tau, f_ext, d, rng_seed=5):
    """Every algorithm's joint-space results (or scalars) for the system moved by ``d``."""
    rng = np.random.default_rng(rng_seed)
    m, qm = moved(model, q, d)
    fx = moved_wrenches(f_ext, d)
    out = {}
    out["rnea"] = dl.rnea(m, qm, qd, qdd, fx)
    out["crba"] = dl.crba(m, qm)
    out["aba"] = dl.aba(m, qm, qd, tau, fx)
    out["forward_dynamics_crba"] = dl.forward_dynamics_crba(m, qm, qd, tau, fx)
    given = rng.uniform(size=model.n_bodies) < 0.5
    out["hybrid_dynamics"] = np.concatenate(dl.hybrid_dynamics(m, qm, qd, qdd, tau, given, fx))
    out["rnea_derivatives"] = np.stack(dl.rnea_derivatives(m, qm, qd, qdd, fx))
    out["aba_derivatives"] = np.stack(dl.aba_derivatives(m, qm, qd, tau, fx))
    out["coriolis_matrix"] = dl.coriolis_matrix(m, qm, qd)
    out["kinetic energy"] = dl.system_kinetic_energy(m, qm, qd)
    bodies = dl.articulated_bodies(m, qm, qd, tau, fx)
    out["articulated_bodies D"] = np.concatenate([D.ravel() for D in bodies.D])
    # a loop: the last body's origin held to where it is, in the world
    kin = dl.forward_kinematics(model, q)
    k = model.n_bodies - 1
    anchor = kin.p[k]
    cons = [dl.LoopConstraint(k, -1, np.zeros(3), anchor + d)]  # held where it is, in the world

    def constrained_forward():
        return np.concatenate(dl.constrained_forward_dynamics(m, qm, qd, tau, cons, fx))

    def constrained_inverse():
        qdd_c = dl.constrained_forward_dynamics(m, qm, qd, tau, cons, fx)[0]
        return np.concatenate(dl.constrained_inverse_dynamics(m, qm, qd, qdd_c, cons, [True] * model.n_bodies, fx))

    # a small tree may not move its last body in every direction: then both the near and the far system refuse
    attempt(out, "constrained_forward_dynamics", constrained_forward)
    attempt(out, "stacked_forward_dynamics", lambda: dl.stacked_forward_dynamics(m, qm, qd, tau, fx, cons).qdd)
    attempt(out, "project_velocity", lambda: dl.project_velocity(m, qm, qd, cons))
    attempt(out, "constrained_inverse_dynamics", constrained_inverse)
    # chain algorithms on the first serial part
    chain = chain_of(model)
    if chain.n_bodies >= 2:
        cm, cq = moved(chain, q[: chain.nq], d)
        cqd, ctau = qd[: chain.nv], tau[: chain.nv]
        cf = fx[: chain.n_bodies]
        out["split_chain_dynamics"] = dl.split_chain_dynamics(cm, cq, cqd, ctau, chain.n_bodies // 2, cf)
        ckin = dl.forward_kinematics(chain, q[: chain.nq], cqd)
        j = chain.n_bodies - 1
        point = dyadic(ckin.p[j] + ckin.R[j] @ np.array([0.05, 0.02, -0.03]))
        v_point = ckin.v[j][:3] + np.cross(ckin.v[j][3:], point)
        axis = np.argmax(np.abs(v_point))
        e = np.sign(v_point[axis]) * np.eye(3)[axis]  # into the obstacle, along the axis it moves fastest
        contact = dl.line_coordinates(point + d, e)

        def propagated():
            response = dl.impulse_propagation(cm, cq, cqd, contact, 0.5)
            return np.concatenate([[response.J], response.dqd])

        def joint_space():
            J, dqd = dl.contact_impulse(cm, cq, cqd, contact, 0.5)
            return np.concatenate([[J], dqd])

        attempt(out, "impulse_propagation", propagated)
        attempt(out, "contact_impulse", joint_space)
    return out


def cell(x):
    return "raises" if x == float("inf") else "—" if x != x else f"{x:.1e}"


def systems():
    here = pathlib.Path(dl.__file__).parent / "multibody" / "data"
    solo = dl.load_urdf(here / "solo12.urdf", floating_base=True)
    rng = np.random.default_rng(1)
    yield "Solo12 (free-floating)", solo, rng
    yield "iiwa14", dl.kuka_iiwa14(), rng
    kinds = ["revolute", "prismatic", "helical", "spherical", "translational", "free"]
    yield "random tree (12 bodies)", dl.random_tree(12, 4, kinds=kinds, branching=0.4), rng


def main(argv=None):
    rounded = "--rounded" in (sys.argv[1:] if argv is None else argv)
    rows, names = {}, None
    for label, model, rng in systems():
        q = dl.random_configuration(model, rng)
        if not rounded:
            model, q = exactly_movable(model, q)
        qd, qdd, tau = (dyadic(dl.random_velocity(model, rng)) for _ in range(3))
        f_ext = dyadic(rng.normal(size=(model.n_bodies, 6)))
        base = results(model, q, qd, qdd, tau, f_ext, np.zeros(3))
        names = names or list(base)
        for distance in DISTANCES:
            far = results(model, q, qd, qdd, tau, f_ext, np.round(distance * DIRECTION))
            for name in base:
                rows.setdefault(name, {})[(label, distance)] = relative_change(far[name], base[name])
    labels = [label for label, _, _ in systems()]
    header = "| algorithm | " + " | ".join(f"{label}, {d:.0e} m" for label in labels for d in DISTANCES) + " |"
    print(header)
    print("|---" * (1 + len(labels) * len(DISTANCES)) + "|")
    for name, cells in rows.items():
        print(f"| {name} | " + " | ".join(cell(cells.get((label, d), float("nan"))) for label in labels
                                          for d in DISTANCES) + " |")
    worst = max(max(cells.values()) for cells in rows.values())
    if worst == float("inf"):
        print("\nsome algorithms raise far from the origin (see 'raises')")
        worst = max(x for cells in rows.values() for x in cells.values() if x != float("inf"))
    print(f"\nlargest relative change: {worst:.1e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
