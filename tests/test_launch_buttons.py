"""Binder buttons link to the GitHub repository the book is built from, and to nothing else."""

import importlib.util
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("launch_buttons", ROOT / "book" / "extensions" / "launch_buttons.py")
launch_buttons = importlib.util.module_from_spec(spec)
spec.loader.exec_module(launch_buttons)


@pytest.mark.parametrize("remote", ["https://github.com/org/course", "https://github.com/org/course.git",
                                    "git@github.com:org/course.git", "ssh://git@github.com/org/course.git\n"])
def test_github_remotes_give_the_repository_address(remote):
    assert launch_buttons.github_url(remote) == "https://github.com/org/course"


@pytest.mark.parametrize("remote", ["", "../elsewhere/course", "https://gitlab.com/org/course",
                                    "https://github.com/org", "https://github.com.evil.example/org/course"])
def test_other_remotes_give_no_address(remote):
    assert launch_buttons.github_url(remote) is None


def configured(tmp_path, origin, **settings):
    subprocess.run(["git", "init", "-q", "-b", "main", str(tmp_path)], check=True)
    if origin:
        subprocess.run(["git", "-C", str(tmp_path), "remote", "add", "origin", origin], check=True)
    config = SimpleNamespace(html_theme_options={"repository_url": "https://github.com/executablebooks/jupyter-book",
                                                 "launch_buttons": {"notebook_interface": "classic"}},
                             **settings)
    launch_buttons._configure(SimpleNamespace(srcdir=str(tmp_path)), config)
    return config.html_theme_options


def test_a_clone_of_a_github_repository_gets_binder_buttons(tmp_path):
    options = configured(tmp_path, "git@github.com:org/course.git")
    assert options["repository_url"] == "https://github.com/org/course"
    assert options["repository_branch"] == "main"
    assert options["launch_buttons"] == {"notebook_interface": "classic", "binderhub_url": "https://mybinder.org"}


def test_a_clone_without_a_github_origin_gets_no_buttons(tmp_path):
    options = configured(tmp_path, None)
    assert options["launch_buttons"]["binderhub_url"] == ""


def test_the_student_book_gets_no_buttons_even_in_a_github_clone(tmp_path):
    options = configured(tmp_path, "git@github.com:org/course.git", dynlib_launch_buttons=False)
    assert options["launch_buttons"]["binderhub_url"] == ""
    assert "repository_url" not in options and options["use_repository_button"] is False
