"""The Model: validation with clear errors, immutability, builders and joint-space vectors."""

import dataclasses

import numpy as np
import pytest

import dynlib as dl

from conftest import assert_close


def simple_parts(n=2):
    joints = [dl.revolute() for _ in range(n)]
    placements = np.array([np.eye(4)] * n)
    inertias = np.array([dl.spatial_inertia(1.0, [0.5, 0, 0], np.diag([0.1, 0.1, 0.1]))] * n)
    return joints, placements, inertias


def test_a_valid_model_exposes_its_sizes_and_structure():
    model = dl.random_tree(6, 7, branching=1.0, kinds=["spherical", "revolute", "free"])
    assert model.nq == sum(j.nq for j in model.joints) and model.nv == sum(j.nv for j in model.joints)
    assert all(p < i for i, p in enumerate(model.parent))
    for i in range(model.n_bodies):
        assert model.q_slices[i].stop - model.q_slices[i].start == model.joints[i].nq
        for c in model.children[i]:
            assert model.parent[c] == i
        assert model.ancestors(i)[-1] == i
        assert all(model.parent[k] in model.subtree(i) for k in model.subtree(i)[1:])


def test_model_is_immutable():
    model = dl.planar_chain(2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        model.gravity = np.zeros(3)
    for array in (model.placements, model.inertias, model.gravity, model.mass, model.com):
        with pytest.raises(ValueError, match="read-only"):
            array[...] = 0


def test_the_model_copies_its_inputs():
    joints, placements, inertias = simple_parts()
    model = dl.Model((-1, 0), joints, placements, inertias)
    placements[1, 0, 3] = 99.0
    assert model.placements[1, 0, 3] == 0.0


def test_massless_connector_bodies_are_allowed():
    joints, placements, inertias = simple_parts(3)
    inertias[1] = 0.0
    model = dl.Model((-1, 0, 1), joints, placements, inertias)
    assert model.mass[1] == 0.0


def test_random_trees_can_be_chains_branched_and_depth_first():
    chain = dl.random_tree(8, 1, branching=0.0)
    assert chain.parent == tuple(range(-1, 7))
    branched = dl.random_tree(30, 2, branching=0.8, depth_first=True)
    assert len(set(branched.parent)) < 29
    # depth-first numbering: every subtree occupies consecutive indices
    for i in range(branched.n_bodies):
        sub = branched.subtree(i)
        assert sub == list(range(i, i + len(sub)))


def test_serial_chain_from_note_000_parameters():
    model = dl.serial_chain([1.0, 2.0], [0.5, 0.25], [1.0, 0.5], [np.eye(3) * 0.1] * 2)
    assert_close(model.placements[1][:3, 3], [1.0, 0, 0])
    assert_close(model.com, [[0.5, 0, 0], [0.25, 0, 0]])
    assert_close(model.mass, [1.0, 2.0])


def test_model_level_integrate_and_difference(tree, rng):
    q = dl.random_configuration(tree, rng)
    v = dl.random_velocity(tree, rng)
    q1 = dl.integrate(tree, q, v, 0.1)
    assert_close(dl.difference(tree, q, q1), 0.1 * v, rtol=1e-9, scale=1.0)
    assert_close(dl.neutral_configuration(tree), dl.integrate(tree, dl.neutral_configuration(tree), np.zeros(tree.nv)))


def bad_inertia(kind):
    I = dl.spatial_inertia(1.0, np.zeros(3), np.eye(3))
    if kind == "negative mass":
        return -I
    if kind == "asymmetric":
        I = I.copy()
        I[3, 4] = 0.3
        return I
    if kind == "not positive definite":
        I = I.copy()
        I[5, 5] = -1.0
        return I
    if kind == "triangle":
        return dl.spatial_inertia(1.0, np.zeros(3), np.eye(3)) + np.diag([0, 0, 0, 0, 0, 5.0])
    raise AssertionError(kind)


def second_body(kind):
    return np.array([np.eye(6), bad_inertia(kind)])


@pytest.mark.parametrize(
    "change, error, message",
    [
        (dict(parent=(-1, 1)), ValueError, r"parent\[1\] must satisfy -1 <= parent\[i\] < i, got 1"),
        (dict(parent=(-1, 2)), ValueError, r"parent\[1\] must satisfy"),
        (dict(parent=(-1, 0.5)), TypeError, r"parent\[1\] must be an int"),
        (dict(parent=()), ValueError, "at least one body"),
        (dict(joints=[dl.revolute()]), ValueError, r"joints must have length 2"),
        (dict(joints=[dl.revolute(), "revolute"]), TypeError, r"joints\[1\] must be a dynlib Joint"),
        (dict(placements=np.zeros((2, 3, 3))), ValueError, r"placements must have shape \(2, 4, 4\)"),
        (dict(placements=np.array([np.eye(4), np.diag([2.0, 1, 1, 1])])), ValueError, r"placements\[1\].*rotation"),
        (dict(placements=np.array([np.eye(4), np.diag([-1.0, 1, 1, 1])])), ValueError, r"placements\[1\].*det \+1"),
        (dict(inertias=np.zeros((2, 3, 3))), ValueError, r"inertias must have shape \(2, 6, 6\)"),
        (dict(inertias=second_body("negative mass")), ValueError, r"inertias\[1\].*positive mass"),
        (dict(inertias=second_body("asymmetric")), ValueError, r"inertias\[1\].*not a rigid-body"),
        (dict(inertias=second_body("not positive definite")), ValueError, r"inertias\[1\].*positive definite"),
        (dict(inertias=second_body("triangle")), ValueError, r"inertias\[1\].*triangle inequality"),
        (dict(gravity=(0, -9.81)), ValueError, r"gravity must have shape \(3,\)"),
        (dict(gravity=(0, np.nan, 0)), ValueError, "gravity must be finite"),
        (dict(names=("a", "a")), ValueError, "names must be 2 distinct strings"),
    ],
)
def test_bad_models_are_rejected_with_a_clear_message(change, error, message):
    joints, placements, inertias = simple_parts()
    parts = dict(parent=(-1, 0), joints=joints, placements=placements, inertias=inertias)
    parts.update(change)
    with pytest.raises(error, match=message):
        dl.Model(**parts)


def test_bad_joint_space_vectors_are_rejected():
    model = dl.random_tree(3, 0, kinds=["spherical"])
    q = dl.neutral_configuration(model)
    with pytest.raises(ValueError, match=r"q must have shape \(nq,\) = \(12,\), got \(11,\)"):
        dl.check_configuration(model, q[:-1])
    bad = q.copy()
    bad[4:8] = [0, 0, 0, 2.0]
    with pytest.raises(ValueError, match=r"q\[4:\].*unit quaternion"):
        dl.check_configuration(model, bad)
    with pytest.raises(ValueError, match=r"qd must have shape \(nv,\) = \(9,\)"):
        dl.check_velocity(model, np.zeros(12))
    with pytest.raises(TypeError, match="must hold real numbers"):
        dl.check_velocity(model, np.array(["a"] * 9))


def test_builder_errors():
    with pytest.raises(ValueError, match="must have the same length"):
        dl.serial_chain([1.0, 1.0], [0.5], [1.0, 1.0], [np.eye(3)] * 2)
    with pytest.raises(ValueError, match="n must be a positive int"):
        dl.planar_chain(0)
    with pytest.raises(ValueError, match="kinds must be a non-empty subset"):
        dl.random_tree(3, 0, kinds=["ball"])


def test_a_pickled_model_is_validated_again_and_keeps_its_read_only_arrays():
    import pickle

    model = dl.random_tree(5, 0)
    copy = pickle.loads(pickle.dumps(model))
    assert copy.parent == model.parent and [j.kind for j in copy.joints] == [j.kind for j in model.joints]
    for name in model.arrays._fields:
        mine, theirs = getattr(model.arrays, name), getattr(copy.arrays, name)
        if isinstance(mine, np.ndarray):
            assert np.array_equal(mine, theirs) and theirs.flags.writeable == mine.flags.writeable
    q = dl.random_configuration(model, np.random.default_rng(1))
    assert np.array_equal(dl.crba(copy, q), dl.crba(model, q))
