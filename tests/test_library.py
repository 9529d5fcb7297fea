"""dynlib as a library others build on: it changes nothing outside itself, keeps its kernels apart from
the functions that check their input, compiles a kernel only once it is used often, and has one version."""

import importlib.metadata
import json
import os
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import numpy as np
import pytest

import dynlib as dl
from dynlib.core import compile as compile_

ROOT = Path(__file__).resolve().parents[1]


def run_python(code, env=None, cwd=None, timeout=600):
    """Run ``code`` in a fresh Python process (this interpreter) and return its stdout; fail with its stderr."""
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=timeout, env=dict(os.environ, **(env or {})), cwd=cwd)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


# ---------------------------------------------------------------------------------- no side effects


USER_PRODUCTS = """
    import json
    import numba
    import numpy as np

    @numba.njit
    def product(A, B):  # a user's own compiled function, knowing nothing of dynlib
        return A @ B

    def outcome(A, B):
        try:
            return np.asarray(product(A, B)).tolist()
        except ValueError as err:
            return "ValueError: " + str(err)

    cases = [((3, 4), (3,)), ((3, 4), (4,)), ((3,), (4, 2)), ((4,), (4, 2)), ((2, 3), (2, 3)), ((2, 3), (3, 2)),
             ((3,), (4,)), ((3,), (3,)), ((70, 70), (70, 70))]
    rng = np.random.default_rng(0)
    print(json.dumps([outcome(rng.normal(size=a), rng.normal(size=b)) for a, b in cases]))
"""


def test_a_users_numba_products_give_the_same_results_and_errors_after_dynlib_compiles():
    alone = json.loads(run_python(USER_PRODUCTS))
    beside = json.loads(run_python(textwrap.dedent("""
        import numpy as np
        import dynlib as dl
        dl.core.compile.compile_now()
        model = dl.planar_chain(2)
        dl.rnea(model, [0.1, 0.2], [0.3, 0.4], [0.5, 0.6])   # dynlib compiles (and registers its products)
        assert dl.core.compile._compiled
    """) + textwrap.dedent(USER_PRODUCTS)))
    assert sum(isinstance(x, str) for x in alone) == 4  # the mismatched pairs
    for case, (got, expected) in enumerate(zip(beside, alone)):
        if isinstance(expected, str):  # numba's own error for mismatched sizes, word for word
            assert got == expected and "incompatible array sizes" in got, case
        else:
            assert not isinstance(got, str) and dl.relative_close(got, expected, rtol=1e-12), case


def test_importing_dynlib_leaves_print_options_warning_filters_and_numba_alone():
    out = json.loads(run_python("""
        import json, sys, warnings
        import numpy as np
        before = (repr(np.get_printoptions()), len(warnings.filters))
        import dynlib as dl
        dl.rnea(dl.kuka_iiwa14(), np.zeros(7), np.zeros(7), np.zeros(7))
        after = (repr(np.get_printoptions()), len(warnings.filters))
        print(json.dumps([before == after, "numba" in sys.modules]))
    """))
    assert out == [True, False]  # and the first calls ran without even importing numba


# ------------------------------------------------------------------------------ doors and kernels


def test_the_top_level_holds_doors_and_the_kernels_live_in_dynlib_kernels():
    kernels = set(dl.kernels.__all__)
    assert {"rnea_passes", "crba_passes", "aba_passes", "body_kinematics", "passed_to_parent"} <= kernels
    assert not kernels & set(dl.__all__), "a kernel is exported at the top level"
    for name in ("rnea_passes", "aba_passes", "body_kinematics", "joint_pose"):
        assert not hasattr(dl, name)
        assert callable(getattr(dl.kernels, name))
    assert "trust" in dl.kernels.__doc__


def test_every_public_name_is_written_once():
    """The layers' and the top level's __all__ are their modules' lists, not copies of them."""
    for package in (dl, dl.spatial, dl.multibody, dl.algorithms, dl.course):
        source = Path(package.__file__).read_text()
        for name in package.__all__:
            assert f'"{name}"' not in source, f"{package.__name__}/__init__.py names {name} again"


def test_a_kernel_trusts_its_input_and_its_door_does_not():
    model = dl.planar_chain(2)
    q = np.zeros(3)  # one entry too long
    with pytest.raises(ValueError, match=r"q must have shape \(nq,\) = \(2,\)"):
        dl.rnea(model, q, np.zeros(2), np.zeros(2))
    dl.kernels.rnea_passes(model.arrays, q, np.zeros(2), np.zeros(2), np.zeros((2, 6)))  # no error: unchecked


# ------------------------------------------------------------------------- compiling when it pays


def test_kernels_run_as_python_until_used_often_then_compiled():
    out = json.loads(run_python("""
        import json
        import numpy as np
        import dynlib as dl
        from dynlib.core import compile as c
        model = dl.kuka_iiwa14()
        q, qd = np.zeros(7), np.ones(7)
        first = [dl.rnea(model, q, qd, qd).tolist(), dl.crba(model, q).tolist(), dl.aba(model, q, qd, qd).tolist()]
        after_three = sorted(f.__name__ for f in c._compiled)
        for _ in range(c.HOT):
            dl.rnea(model, q, qd, qd)
        after_hot = sorted(f.__name__ for f in c._compiled)
        Q = np.zeros((c.HOT, 7))
        dl.crba(model, Q)                                     # a batch this large compiles at once
        dl.rnea(model, Q[:3], qd, qd)                         # a small batch of a kernel already compiled
        print(json.dumps([after_three, after_hot, sorted(f.__name__ for f in c._compiled), first]))
    """, env={"DYNLIB_COMPILE": "1"}))
    after_three, after_hot, after_batch, first = out
    assert after_three == [], "a first call compiled"
    assert "rnea_passes" in after_hot and "crba_passes" not in after_hot
    assert "crba_batch" in after_batch and "rnea_batch" in after_batch
    model = dl.kuka_iiwa14()
    assert dl.relative_close(first[0], dl.rnea(model, np.zeros(7), np.ones(7), np.ones(7)), rtol=1e-12)


def test_the_uncompiled_warning_names_the_callers_line():
    out = run_python("""
        import warnings
        import numpy as np
        import dynlib as dl
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            dl.rnea(dl.planar_chain(2), np.zeros(2), np.zeros(2), np.zeros(2))
        said = [w for w in caught if "plain Python" in str(w.message)]
        print(len(said), said[0].filename)
    """, env={"DYNLIB_COMPILE": "0"})
    count, filename = out.split()
    assert count == "1" and filename == "<string>"  # the caller's code, not a line inside dynlib


def test_compile_kernels_compiles_them_now():
    if not compile_.COMPILED:
        pytest.skip("numba is not installed here")
    out = run_python("""
        import dynlib as dl
        from dynlib.core import compile as c
        dl.compile_kernels()
        print(sorted(f.__name__ for f in c._compiled))
    """)
    for name in ("rnea_passes", "crba_passes", "aba_passes", "rnea_batch", "rnea_derivative_passes"):
        assert name in out


# --------------------------------------------------------------------------------------- version


def test_the_version_is_one_number():
    assert dl.__version__ == importlib.metadata.version("dynlib")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert "version" not in project and "version" in project["dynamic"]  # read from dynlib.__version__
