"""The instructors' page, followed word for word in a fresh clone: generate with a secret, grade, export.

The clone uses this checkout's two virtual environments (made from the same requirements files) so
that it installs nothing; everything else (the course, the sandbox's compiled kernels, the grades)
is made from scratch by the commands the page gives.
"""

import csv
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import assignments  # noqa: E402

SECRET = "walkthrough-8128"
STAMPS = (".venv/.installed", ".venv/.installed-test", ".venv-grading/.installed")


def make(clone, *targets, secret=SECRET, check=True):
    """``make TARGETS`` in the clone, taking its environments' stamps as up to date (nothing reinstalled)."""
    env = {k: v for k, v in os.environ.items() if k not in ("ASSIGNMENT_SEED", "MAKEFLAGS", "MAKELEVEL")}
    if secret is not None:
        env["ASSIGNMENT_SEED"] = secret
    done = subprocess.run(["make", *[a for s in STAMPS for a in ("-o", s)], *targets], cwd=clone, env=env,
                          capture_output=True, text=True)
    if check and done.returncode:
        raise AssertionError(f"make {' '.join(targets)} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return done


def test_the_instructors_page_as_written(tmp_path):
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    for venv in (".venv", ".venv-grading"):
        (clone / venv).symlink_to(ROOT / venv)
    page = (ROOT / "book" / "instructors.md").read_text()
    for command in ("ASSIGNMENT_SEED=<your secret number> make assignments",
                    "make grade SUBMISSIONS=path/to/submissions", "make export"):
        assert command in page

    made = make(clone, "assignments")  # 1. generate, with a secret that is not the default
    course = clone / "_build" / "course"
    names = sorted(p.name for p in (course / "release").iterdir())
    assert len(names) == len(list((ROOT / "exercises").glob("*.ipynb"))), made.stdout
    assert assignments.recorded_secret(course) == SECRET
    assert (course / "instructor" / "secret.json").stat().st_mode & 0o077 == 0

    submissions = tmp_path / "submissions"  # 2.-3. released, done by two students, collected
    assignments.write_samples(course, submissions)
    graded = make(clone, "grade", f"SUBMISSIONS={submissions}")  # 4. grade
    assert f"[{2 * len(names):>3}/{2 * len(names)}]" in graded.stdout and "elapsed" in graded.stdout
    rows = list(csv.DictReader((course / "grades.csv").open()))
    assert {(r["student"], r["assignment"]) for r in rows} == {(s, n) for s in ("right", "wrong") for n in names}
    for row in rows:
        assert row["status"] == "graded", row
        assert row["autograded"] == (row["autograded_max"] if row["student"] == "right" else "0"), row
    for student in ("right", "wrong"):
        assert all(list((course / "feedback" / student / n).glob("*.html")) for n in names)

    exported = make(clone, "export", secret=None)  # 5. after grading the words answers by hand
    assert "grades in" in exported.stdout
    assert list(csv.DictReader((course / "grades.csv").open())) == rows

    refused = make(clone, "grade", f"SUBMISSIONS={submissions}", secret="another secret", check=False)
    assert refused.returncode != 0 and "not the secret this course was written with" in refused.stderr
