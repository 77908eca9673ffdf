"""A throw-away standalone Spark cluster (one master, one worker) on 127.0.0.1, or a Spark Connect
server there.

Started from the pip-installed pyspark, which has ``bin/spark-class`` but no
``sbin/start-master.sh``::
    spark-class org.apache.spark.deploy.master.Master --host 127.0.0.1 --port P --webui-port W
    spark-class org.apache.spark.deploy.worker.Worker --host 127.0.0.1 --cores 2 --memory 4g spark://127.0.0.1:P

Every port is a free one picked at start, so several clusters can run side by
side.  Each daemon runs in its own process group and is always killed on exit
(``with LocalCluster() as c: ...``), also when the body raises.  Logs go to
``<work_dir>/master.log`` and ``worker.log``; the worker's scratch space is
``<work_dir>/worker`` (never the pyspark installation folder).

:class:`LocalConnectServer` starts pyspark's own Spark Connect server (4.x ships its jar; the pip
pyspark 3.5 does not) the same way, with ``spark-submit --class ...SparkConnectServer``, bound to
127.0.0.1 on a free port, its Python workers running the interpreter given (``python``).

Used by the ``cluster`` and Connect tests and by hand::
    python -m corpus_pipeline.spark.cluster             # prints the master URL; Ctrl-C or kill PID stops it
    python -m corpus_pipeline.spark.cluster --connect   # prints an sc:// URL for --remote
"""
from __future__ import annotations

import atexit
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from typing import Optional

import argparse

MASTER_CLASS = "org.apache.spark.deploy.master.Master"
CONNECT_CLASS = "org.apache.spark.sql.connect.service.SparkConnectServer"
WORKER_CLASS = "org.apache.spark.deploy.worker.Worker"


def spark_home() -> str:
    """SPARK_HOME of the installed pyspark (or the SPARK_HOME environment variable)."""
    from pyspark.find_spark_home import _find_spark_home

    return _find_spark_home()


def spark_bin(name: str) -> str:
    path = os.path.join(spark_home(), "bin", name)
    if not os.path.exists(path):
        raise FileNotFoundError(f"{name} not found in {spark_home()}/bin")
    return path


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _tail(path: str, n: int = 30) -> str:
    try:
        with open(path, "rb") as f:
            lines = f.read().decode("utf-8", "replace").splitlines()
        return "\n".join(lines[-n:])
    except OSError:
        return "(no log)"


class LocalCluster:
    """One master + ``workers`` workers (one by default) bound to 127.0.0.1; a context manager."""

    def __init__(self, cores: int = 2, memory: str = "4g", work_dir: Optional[str] = None,
                 timeout_s: float = 90.0, env: Optional[dict] = None, workers: int = 1):
        self.workers = max(1, int(workers))     # worker daemons, each with ``cores`` cores and ``memory``
        self.cores = cores
        self.memory = memory
        self.timeout_s = timeout_s
        self._own_work_dir = work_dir is None
        self.work_dir = work_dir or tempfile.mkdtemp(prefix="spark_cluster_")
        os.makedirs(self.work_dir, exist_ok=True)
        self.port = free_port()
        self.webui_port = free_port()
        self.worker_port = free_port()
        self.worker_webui_port = free_port()
        self._procs: list[subprocess.Popen] = []
        self._env = dict(os.environ)
        self._env["SPARK_LOCAL_IP"] = "127.0.0.1"
        self._env["SPARK_LOCAL_HOSTNAME"] = "127.0.0.1"
        self._env.setdefault("PYSPARK_PYTHON", sys.executable)
        # no REST submission server (another fixed port, 6066) and no event log surprises
        self._env["SPARK_MASTER_OPTS"] = (self._env.get("SPARK_MASTER_OPTS", "") +
                                          " -Dspark.master.rest.enabled=false").strip()
        self._env.update(env or {})
        self.timings: dict[str, float] = {}

    # ------------------------------------------------------------ addresses
    @property
    def master_url(self) -> str:
        return f"spark://127.0.0.1:{self.port}"

    @property
    def webui_url(self) -> str:
        return f"http://127.0.0.1:{self.webui_port}"

    @property
    def master_log(self) -> str:
        return os.path.join(self.work_dir, "master.log")

    @property
    def worker_log(self) -> str:
        return os.path.join(self.work_dir, "worker.log")

    def state(self) -> Optional[dict]:
        """The master's JSON status page, or None while it does not answer."""
        try:
            with urllib.request.urlopen(self.webui_url + "/json/", timeout=2) as r:
                return json.loads(r.read().decode("utf-8"))
        except (OSError, ValueError):
            return None

    def alive_workers(self) -> int:
        st = self.state() or {}
        return sum(1 for w in st.get("workers", []) if w.get("state") == "ALIVE")

    # ------------------------------------------------------------ life cycle
    def _spawn(self, args: list[str], log: str, program: str = "spark-class") -> subprocess.Popen:
        with open(log, "ab") as out:
            p = subprocess.Popen([spark_bin(program), *args], stdout=out, stderr=subprocess.STDOUT,
                                 stdin=subprocess.DEVNULL, env=self._env, cwd=self.work_dir,
                                 start_new_session=True)  # own process group: killpg stops java too
        self._procs.append(p)
        return p

    def _wait(self, what: str, ready, proc: subprocess.Popen, log: str, deadline: float) -> None:
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"spark {what} exited with code {proc.returncode}:\n{_tail(log)}")
            if ready():
                return
            time.sleep(0.25)
        raise TimeoutError(f"spark {what} not ready after {self.timeout_s:.0f}s:\n{_tail(log)}")

    def start(self) -> "LocalCluster":
        t0 = time.monotonic()
        deadline = t0 + self.timeout_s
        atexit.register(self.stop)  # also when the caller forgets (not on SIGKILL)
        try:
            master = self._spawn([MASTER_CLASS, "--host", "127.0.0.1", "--port", str(self.port),
                                  "--webui-port", str(self.webui_port)], self.master_log)
            self._wait("master", lambda: self.state() is not None, master, self.master_log, deadline)
            self.timings["master_start_s"] = time.monotonic() - t0
            t1 = time.monotonic()
            for n in range(self.workers):
                worker_dir = os.path.join(self.work_dir, "worker" if not n else f"worker{n}")
                os.makedirs(worker_dir, exist_ok=True)
                port, ui = (self.worker_port, self.worker_webui_port) if not n else (free_port(), free_port())
                log = self.worker_log if not n else os.path.join(self.work_dir, f"worker{n}.log")
                worker = self._spawn([WORKER_CLASS, "--host", "127.0.0.1", "--port", str(port),
                                      "--webui-port", str(ui), "--cores", str(self.cores),
                                      "--memory", self.memory, "--work-dir", worker_dir, self.master_url], log)
                self._wait("worker registration", lambda n=n: self.alive_workers() >= n + 1, worker, log, deadline)
            self.timings["worker_register_s"] = time.monotonic() - t1
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self, grace_s: float = 10.0) -> None:
        """Kill every daemon's process group (SIGTERM, then SIGKILL). Safe to call twice."""
        for p in reversed(self._procs):
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        for p in reversed(self._procs):
            try:
                p.wait(timeout=grace_s)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                p.wait(timeout=grace_s)
        self._procs.clear()
        if self._own_work_dir:  # a temporary folder of ours (worker scratch, unpacked archives, logs)
            shutil.rmtree(self.work_dir, ignore_errors=True)

    def __enter__(self) -> "LocalCluster":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    @staticmethod
    def executor_pids(app_id: Optional[str] = None) -> dict[str, int]:
        """Executor id -> pid of the executor JVMs the workers launched (``CoarseGrainedExecutorBackend``
        processes, read from /proc; Linux), of application ``app_id`` (default: any)."""
        out = {}
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            try:
                with open(f"/proc/{d}/cmdline", "rb") as f:
                    args = f.read().decode("utf-8", "replace").split("\0")
            except OSError:
                continue
            if "org.apache.spark.executor.CoarseGrainedExecutorBackend" not in args:
                continue
            if app_id is not None and app_id not in args:
                continue
            if "--executor-id" in args:
                out[args[args.index("--executor-id") + 1]] = int(d)
        return out

    def kill_executor(self, executor_id: str, app_id: Optional[str] = None) -> int:
        """SIGKILL one executor's JVM (its Python workers die with it); the pid killed."""
        pid = self.executor_pids(app_id)[executor_id]
        os.kill(pid, signal.SIGKILL)
        return pid

    def submit_env(self) -> dict:
        """Environment for a ``spark-submit`` to this cluster from this machine."""
        env = dict(os.environ)
        env["SPARK_LOCAL_IP"] = "127.0.0.1"
        env["PYSPARK_PYTHON"] = self._env["PYSPARK_PYTHON"]
        return env


def port_open(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(1)
        return s.connect_ex(("127.0.0.1", port)) == 0


def has_connect_server() -> bool:
    """The installed pyspark ships the Spark Connect server's jar (4.x does; the pip 3.5 does not)."""
    jars = os.path.join(spark_home(), "jars")
    return os.path.isdir(jars) and any(n.startswith("spark-connect_") for n in os.listdir(jars))


class LocalConnectServer(LocalCluster):
    """A Spark Connect server (driver ``local[cores]``) bound to 127.0.0.1; a context manager.

    ``python``: the interpreter of its Python workers (``spark.pyspark.python``); ``conf``: more
    ``--conf`` settings.  Its log is ``<work_dir>/connect.log``; ``url`` is the ``sc://`` address."""

    def __init__(self, cores: int = 2, memory: str = "2g", python: Optional[str] = None,
                 conf: Optional[dict] = None, **kw):
        super().__init__(cores=cores, memory=memory, **kw)
        self.python = python or self._env["PYSPARK_PYTHON"]
        self._env["PYSPARK_PYTHON"] = self.python
        self.conf = dict(conf or {})

    @property
    def url(self) -> str:
        return f"sc://127.0.0.1:{self.port}"

    @property
    def log(self) -> str:
        return os.path.join(self.work_dir, "connect.log")

    def start(self) -> "LocalConnectServer":
        if not has_connect_server():
            raise RuntimeError(f"the pyspark in {spark_home()} has no Spark Connect server jar "
                               "(pip's pyspark ships it from 4.0; for 3.5 add --packages org.apache.spark:"
                               "spark-connect_2.12:3.5.x to a spark-submit of your own)")
        t0 = time.monotonic()
        atexit.register(self.stop)
        conf = {"spark.connect.grpc.binding.address": "127.0.0.1", "spark.connect.grpc.binding.port": self.port,
                "spark.pyspark.python": self.python, "spark.ui.enabled": "false",
                "spark.driver.memory": self.memory, **self.conf}
        args = ["--class", CONNECT_CLASS, "--master", f"local[{self.cores}]"]
        for k, v in conf.items():
            args += ["--conf", f"{k}={v}"]
        try:
            proc = self._spawn(args + ["spark-internal"], self.log, program="spark-submit")
            self._wait("Connect server", lambda: port_open(self.port), proc, self.log, t0 + self.timeout_s)
        except BaseException:
            self.stop()
            raise
        self.timings["server_start_s"] = time.monotonic() - t0
        return self

    def __enter__(self) -> "LocalConnectServer":
        return self.start()


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m corpus_pipeline.spark.cluster",
                                 description="start a standalone master + worker on 127.0.0.1 until Ctrl-C")
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--memory", default="4g")
    ap.add_argument("--connect", action="store_true",
                    help="a Spark Connect server (local[CORES] driver) instead of a master and a worker")
    a = ap.parse_args(argv)

    def _stop(signum, frame):
        raise KeyboardInterrupt

    # Ctrl-C and kill (TERM) both stop the daemons, also when started in the background
    # (where a non-interactive shell makes the process ignore SIGINT)
    signal.signal(signal.SIGINT, _stop)
    signal.signal(signal.SIGTERM, _stop)
    if a.connect:
        with LocalConnectServer(cores=a.cores, memory=a.memory) as c:
            print(f"remote {c.url}  log {c.log}  (started in {c.timings['server_start_s']:.1f}s)", flush=True)
            try:
                while True:
                    time.sleep(3600)
            except KeyboardInterrupt:
                pass
        return 0
    with LocalCluster(cores=a.cores, memory=a.memory) as c:
        print(f"master {c.master_url}  ui {c.webui_url}  logs {c.work_dir}  "
              f"(master {c.timings['master_start_s']:.1f}s, worker {c.timings['worker_register_s']:.1f}s)",
              flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
