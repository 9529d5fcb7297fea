"""A Jupyter kernel in a sandbox, for running code the grader does not trust.

:class:`Sandbox` starts an IPython kernel under bubblewrap (Debian's ``bubblewrap``) as the
unprivileged user ``nobody``, in namespaces of its own:

- it sees a read-only copy of the system (``/usr``, ``/etc``), of the Python installation, of the
  grading environment and of the ``dynlib`` package, and **nothing else** of the machine: not the
  course, its solutions or gradebook, not the submissions, not the rest of the project;
- it writes only to a private working folder (its current directory and home) and a private
  ``/tmp``, both thrown away afterwards;
- it has no network (a network namespace with no interfaces), its own process tree (the kernel
  is process 1's child in a PID namespace: every process it starts dies with it), no
  capabilities, and limits on processes, file size and core dumps;
- it talks to the grader over Unix sockets in the working folder (the ZeroMQ ``ipc`` transport).

:meth:`Sandbox.execute` runs code with a time limit: at the limit the kernel is interrupted,
and a kernel that does not answer the interrupt within a few seconds is killed with every
process inside.  The grader then starts another one (``tools/verdicts.py``).

Tested by ``tests/grading``: each escape a student tried (rewriting the gradebook, a classmate's
notebook or the library, reading the course's sources, a background process that outlives the
kernel, a network connection) is one test.
"""

from __future__ import annotations

import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

NOBODY = 65534
GRACE = 5.0  # seconds a kernel has to stop after an interrupt
START_TIMEOUT = 120.0
LIMITS = ["--nproc=256", "--fsize=1073741824", "--core=0"]  # processes of `nobody`, 1 GB files, no core dumps


class SandboxUnavailable(RuntimeError):
    """bubblewrap is missing or cannot make namespaces here."""


@dataclass
class Execution:
    """What one ``execute`` did: ``status`` is ok, error, timeout (interrupted) or dead (killed or crashed)."""

    status: str
    outputs: list = field(default_factory=list)
    error: tuple = ("", "")
    seconds: float = 0.0


def _ancestors(path):
    path = pathlib.PurePosixPath(path)
    return [str(p) for p in reversed(path.parents) if str(p) != "/"]


def readable_paths(python=None):
    """What the kernel needs to read: the Python installation, the environment and the dynlib package."""
    import dynlib

    python = pathlib.Path(python or sys.executable)
    prefix = pathlib.Path(sys.prefix).resolve()
    base = pathlib.Path(sys.base_prefix).resolve()
    package = pathlib.Path(dynlib.__file__).resolve().parent
    return sorted({str(base), str(prefix), str(package), str(python.resolve().parent)})


def bwrap_command(work, readable, environment):
    """The bubblewrap command line that starts a kernel reading its connection file from ``work``."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise SandboxUnavailable("bubblewrap (bwrap) is not installed: apt-get install bubblewrap")
    command = [bwrap, "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try",
               "--die-with-parent", "--new-session", "--clearenv",
               "--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc", "--proc", "/proc", "--dev", "/dev",
               "--tmpfs", "/tmp"]
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        top = pathlib.Path("/") / name
        if top.is_symlink():
            command += ["--symlink", os.readlink(top), str(top)]
        elif top.is_dir():
            command += ["--ro-bind", str(top), str(top)]
    made = set()
    for path in [*readable, str(work)]:
        for parent in _ancestors(path):
            if parent not in made and parent not in ("/usr", "/etc", "/tmp", "/proc", "/dev"):
                made.add(parent)
                command += ["--perms", "0755", "--dir", parent]
    for path in readable:
        command += ["--ro-bind", path, path]
    command += ["--bind", str(work), str(work), "--chdir", str(work)]
    for key, value in environment.items():
        command += ["--setenv", key, value]
    if os.geteuid() == 0:  # drop to an unprivileged user inside (as an ordinary user, bwrap has no rights to drop)
        command += ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--inh-caps=-all", "--"]
    return command + ["prlimit", *LIMITS, "--"]


class Sandbox:
    """One sandboxed kernel.  ``Sandbox(cache=DIR)`` copies a folder of compiled kernels into its home.

    Use as a context manager, or call :meth:`start` and :meth:`stop`.
    """

    def __init__(self, cache=None, python=None):
        self.cache = cache
        python = pathlib.Path(python or sys.executable)
        # the environment's own python, reached through its real folder: a symlinked environment's path
        # does not exist inside the sandbox, and the link itself leads out of the environment
        self.python = str(python.parent.resolve() / python.name)
        self.process = None
        self.client = None
        self.root = None

    # -------------------------------------------------------------- life cycle

    def start(self):
        from jupyter_client import BlockingKernelClient
        from jupyter_client.connect import write_connection_file

        self.root = pathlib.Path(tempfile.mkdtemp(prefix="dynlib-grading-"))  # 0700: only this process sees it
        work = self.root / "work"
        work.mkdir()
        if self.cache and pathlib.Path(self.cache).is_dir():
            shutil.copytree(self.cache, work / "numba-cache", symlinks=False)
        (work / "io").mkdir()
        connection, _ = write_connection_file(str(work / "kernel.json"), transport="ipc", ip=str(work / "kernel"))
        if os.geteuid() == 0:
            for path in [work, *work.rglob("*")]:
                os.chown(path, NOBODY, NOBODY)
        os.chmod(self.root, 0o711)  # the kernel's user may pass through to its folder, not list what is here
        environment = {
            "HOME": str(work), "PATH": f"{pathlib.Path(self.python).parent}:/usr/bin:/bin", "LANG": "C.UTF-8",
            "NUMBA_CACHE_DIR": str(work / "numba-cache"), "XDG_CACHE_HOME": str(work / "numba-cache"),
            "MPLCONFIGDIR": str(work / ".matplotlib"), "PYTHONDONTWRITEBYTECODE": "1", "TMPDIR": "/tmp",
            "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "JPY_SESSION_NAME": "submission.ipynb",
        }
        command = bwrap_command(work, readable_paths(self.python), environment)
        command += [self.python, "-m", "ipykernel_launcher", "-f", connection, "--IPKernelApp.interrupt_mode=message"]
        self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=open(self.root / "kernel.log", "wb"), start_new_session=True)
        self.work = work
        self.client = BlockingKernelClient(connection_file=connection)
        self.client.load_connection_file()
        deadline = time.monotonic() + START_TIMEOUT
        shell = work / f"kernel-{self.client.shell_port}"
        while not shell.exists():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise SandboxUnavailable(f"the sandboxed kernel did not start: {self.log()[-2000:]}")
            time.sleep(0.05)
        self.client.start_channels()
        self.client.wait_for_ready(timeout=max(1.0, deadline - time.monotonic()))
        return self

    def log(self):
        try:
            return (self.root / "kernel.log").read_text(errors="replace")
        except OSError:
            return ""

    def alive(self):
        return self.process is not None and self.process.poll() is None

    def stop(self):
        """Kill the kernel and everything it started (its whole PID namespace), and remove its folders."""
        if self.client is not None:
            self.client.stop_channels()
            self.client = None
        if self.process is not None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)  # bwrap and its session; the namespace dies with it
            except ProcessLookupError:
                pass
            self.process.wait()
            self.process = None
        if self.root is not None:
            shutil.rmtree(self.root, ignore_errors=True)
            self.root = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    # -------------------------------------------------------------- running code

    def execute(self, code, timeout, silent=False):
        """Run ``code``; its outputs as nbformat outputs, in at most ``timeout`` seconds."""
        import nbformat

        started = time.monotonic()
        if not self.alive():
            return Execution("dead", error=("KernelDied", "the kernel is not running"))
        msg_id = self.client.execute(code, silent=silent, store_history=not silent, allow_stdin=False)
        outputs, error, status = [], ("", ""), None
        deadline, interrupted = started + timeout, False
        while status is None:
            now = time.monotonic()
            if now > deadline:
                if interrupted:
                    return Execution("dead", outputs, ("TimeoutError", f"the cell ran past {timeout:.0f} s and did "
                                                                       "not stop when interrupted"), now - started)
                self._interrupt()
                interrupted, deadline = True, now + GRACE
            try:
                message = self.client.get_iopub_msg(timeout=0.2)
            except Exception:  # queue.Empty: nothing yet
                if not self.alive():
                    return Execution("dead", outputs, ("KernelDied", "the kernel stopped (os._exit, a crash or "
                                                                     "too much memory)"), time.monotonic() - started)
                continue
            if message["parent_header"].get("msg_id") != msg_id:
                continue
            kind, content = message["msg_type"], message["content"]
            if kind == "status" and content["execution_state"] == "idle":
                status = "timeout" if interrupted else self._reply_status(msg_id, deadline)
                if status == "error" and not error[0]:  # silent runs send no error message: the reply has it
                    error = self._last_error
            elif kind == "stream":
                if outputs and outputs[-1].get("output_type") == "stream" and outputs[-1]["name"] == content["name"]:
                    outputs[-1]["text"] += content["text"]
                else:
                    outputs.append(nbformat.v4.new_output("stream", name=content["name"], text=content["text"]))
            elif kind in ("display_data", "execute_result"):
                output = nbformat.v4.new_output(kind, data=content["data"], metadata=content.get("metadata", {}))
                if kind == "execute_result":
                    output["execution_count"] = content.get("execution_count")
                outputs.append(output)
            elif kind == "error":
                error = (content["ename"], content["evalue"])
                outputs.append(nbformat.v4.new_output("error", ename=content["ename"], evalue=content["evalue"],
                                                      traceback=content.get("traceback", [])))
            elif kind == "clear_output":
                outputs.clear()
        if interrupted:
            error = ("TimeoutError", f"the cell ran past {timeout:.0f} s and was interrupted")
        return Execution(status, outputs, error, time.monotonic() - started)

    def _reply_status(self, msg_id, deadline):
        """ok or error, from the kernel's reply to the request (which also carries a silent run's error)."""
        self._last_error = ("", "")
        while True:
            try:
                reply = self.client.get_shell_msg(timeout=max(0.1, deadline - time.monotonic()))
            except Exception:  # no reply in time: count it as an error of the request
                self._last_error = ("NoReply", "the kernel did not answer the request")
                return "error"
            if reply["parent_header"].get("msg_id") == msg_id:
                content = reply["content"]
                if content.get("status") == "ok":
                    return "ok"
                self._last_error = (content.get("ename", "Error"), content.get("evalue", content.get("status", "")))
                return "error"

    def _interrupt(self):
        message = self.client.session.msg("interrupt_request", {})
        self.client.control_channel.send(message)
