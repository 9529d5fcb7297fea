"""dynlib installs like any package and runs wherever it is installed.

- ``pip install .`` and the wheel of ``python -m build`` go into a fresh virtual environment, and
  ``import dynlib`` works there from another directory (with the robots' URDF files it ships).
- From a read-only installation (shared machines, JupyterHub images, containers) it imports and runs,
  and compiled kernels are cached where numba's rules say: ``NUMBA_CACHE_DIR``, else the user's cache
  directory, else nowhere, after one warning.  The read-only copy is made with a private mount
  namespace (``unshare -m``, a read-only bind mount), which needs root; elsewhere those tests skip.
"""

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("dynlib", "pyproject.toml", "README.md", "LICENSE")


def copy_project(destination):
    """The files a build needs, copied (so that building writes nothing into the working tree)."""
    destination.mkdir(parents=True)
    for name in SOURCES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, destination / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        else:
            shutil.copy2(source, destination / name)
    return destination


def run(command, **kwargs):
    done = subprocess.run(command, capture_output=True, text=True, timeout=1200, **kwargs)
    assert done.returncode == 0, f"{command} failed:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    return done.stdout


USE = """
import warnings
warnings.simplefilter("ignore")       # without numba the kernels run as Python, and say so
import numpy as np
import dynlib as dl
arm = dl.kuka_iiwa14()                 # a URDF file shipped inside the package
q = np.zeros(arm.nq)
tau = dl.rnea(arm, q, q, q)
assert abs(dl.aba(arm, q, q, tau)).max() < 1e-9
print(dl.__version__, dl.__file__)
"""


def test_pip_install_and_the_wheel_work_in_a_fresh_environment(tmp_path):
    project = copy_project(tmp_path / "project")
    wheels = tmp_path / "wheels"
    run([sys.executable, "-m", "build", "--wheel", "--outdir", str(wheels), str(project)])
    wheel = next(wheels.glob("dynlib-*.whl"))
    import dynlib

    assert wheel.name.startswith(f"dynlib-{dynlib.__version__}-")
    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", str(venv)])
    python = str(venv / "bin" / "python")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for target in (str(project), str(wheel)):  # pip install . (from a copy), then the wheel over it
        run([python, "-m", "pip", "install", "--quiet", "--force-reinstall", target])
        version, location = run([python, "-c", USE], cwd=elsewhere).split()
        assert version == dynlib.__version__
        assert Path(location).is_relative_to(venv), location  # the installed copy, not the working tree


def read_only(tmp_path, code, writable=(), env=None):
    """Run ``code`` with a copy of dynlib installed read-only in ``tmp_path / "ro"``, whose home (and cache
    directory) is read-only too; ``writable`` folders stay writable.  Returns stdout and stderr."""
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("a read-only bind mount needs root and unshare (make test runs as root)")
    ro = tmp_path / "ro"
    (ro / "home" / ".cache").mkdir(parents=True)
    shutil.copytree(ROOT / "dynlib", ro / "site" / "dynlib", ignore=shutil.ignore_patterns("__pycache__"))
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(code))
    variables = {"HOME": str(ro / "home"), "XDG_CACHE_HOME": str(ro / "home" / ".cache"),
                 "PYTHONPATH": str(ro / "site"), "PYTHONDONTWRITEBYTECODE": "1", **(env or {})}
    mounts = " && ".join([f"mount --bind {ro} {ro}", f"mount -o remount,ro,bind {ro} {ro}"]
                         + [f"mount --bind {w} {w}" for w in writable])
    environment = {key: value for key, value in os.environ.items() if key != "NUMBA_CACHE_DIR"}
    environment.update(variables)
    done = subprocess.run(["unshare", "-m", "sh", "-c", f'{mounts} && exec "$0" "$1"', sys.executable, str(script)],
                          capture_output=True, text=True, timeout=1200, env=environment, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout, done.stderr


COMPILE_SOMETHING = """
import os, warnings
import numpy as np
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import dynlib as dl
    from dynlib.core import compile as c
    assert dl.__file__.startswith(os.environ["PYTHONPATH"]), dl.__file__
    try:
        open(os.path.join(os.path.dirname(dl.__file__), "probe"), "w")
        raise SystemExit("the installation is writable")
    except OSError:
        pass
    arm = dl.kuka_iiwa14()
    q = np.zeros(arm.nq)
    tau = dl.rnea(arm, q, q, q)                     # runs, as Python
    c.compile_now()
    dl.check_velocity(arm, q)                       # compiles the doors' small finiteness check
    dl.check_velocity(arm, q)
    assert c._bounded_entry, "nothing was compiled"
said = [str(w.message) for w in caught if "cache" in str(w.message)]
print(len(said))
print(said[0] if said else "")
"""


def cached_files(folder):
    return sorted(p.name for p in Path(folder).rglob("*.nbi"))


def test_a_read_only_installation_without_a_writable_cache_compiles_with_one_warning(tmp_path):
    out, _ = read_only(tmp_path, COMPILE_SOMETHING)
    count, message = out.split("\n", 1)
    assert count == "1" and "NUMBA_CACHE_DIR" in message, out


def test_a_read_only_installation_caches_in_numba_cache_dir(tmp_path):
    cache = tmp_path / "numba-cache"
    cache.mkdir()
    out, _ = read_only(tmp_path, COMPILE_SOMETHING, writable=[cache], env={"NUMBA_CACHE_DIR": str(cache)})
    assert out.split("\n")[0] == "0", out
    assert any("_bounded_loop" in name for name in cached_files(cache)), cached_files(cache)


def test_a_read_only_installation_caches_in_the_users_cache_directory(tmp_path):
    home_cache = tmp_path / "ro" / "home" / ".cache"
    writable_cache = tmp_path / "user-cache"
    writable_cache.mkdir()
    out, _ = read_only(tmp_path, COMPILE_SOMETHING, writable=[writable_cache],
                       env={"XDG_CACHE_HOME": str(writable_cache)})
    assert out.split("\n")[0] == "0", out
    assert any("_bounded_loop" in name for name in cached_files(writable_cache / "numba")), \
        cached_files(writable_cache)
    assert not cached_files(home_cache)


def test_numba_cache_dir_is_honoured_for_a_writable_installation_too(tmp_path):
    """NUMBA_CACHE_DIR comes first in numba's order, before the source tree (which dynlib used to put first)."""
    site = tmp_path / "site"
    shutil.copytree(ROOT / "dynlib", site / "dynlib", ignore=shutil.ignore_patterns("__pycache__"))
    cache = tmp_path / "numba-cache"
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), PYTHONPATH=str(site), PYTHONDONTWRITEBYTECODE="1")
    code = COMPILE_SOMETHING.replace('''    try:
        open(os.path.join(os.path.dirname(dl.__file__), "probe"), "w")
        raise SystemExit("the installation is writable")
    except OSError:
        pass
''', "")
    out = run([sys.executable, "-c", textwrap.dedent(code)], env=env, cwd=tmp_path)
    assert out.split("\n")[0] == "0", out
    assert any("_bounded_loop" in name for name in cached_files(cache))
    assert not cached_files(site), "compiled code was cached in the source tree"
