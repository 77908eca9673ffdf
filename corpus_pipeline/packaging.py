"""Build what Spark executors need: ``python -m corpus_pipeline.packaging --out dist``.

Outputs (in ``--out``, default ``dist/``):

* ``corpus_pipeline.zip`` - the ``corpus_pipeline`` package (code and package
  data) plus the project's ``seeds/`` folder, for ``spark-submit --py-files``.
  Rebuilt only when a source file is newer than the zip (``ensure_zip``).
* ``cli.py`` - the driver script ``spark-submit`` runs (a copy of
  ``jobs/cli.py``: ``corpus_pipeline.cli.main(sys.argv[1:])``).
* ``--wheel``: ``corpus_pipeline-<version>-py3-none-any.whl`` (``pip wheel --no-deps``).
* ``--pack-env``: ``environment.tar.gz`` - a fresh virtual environment with the
  project and all of its Python dependencies (fastText, trafilatura, datasketch,
  warcio, boto3, pyarrow ...), for executors that lack them::
      spark-submit --archives dist/environment.tar.gz#environment \\
          --conf spark.pyspark.python=./environment/bin/python ...

  (``corpus-pipeline submit --env-archive dist/environment.tar.gz`` writes that
  for you).  pyspark itself is left out by default (``--with-pyspark`` keeps it):
  executors take pyspark from the cluster's Spark installation.  A venv holds no
  interpreter of its own: the machines that unpack it need the same Python
  version at the same path (``python_prefix`` in ``environment.json``); where
  they do not, build the environment on the cluster's image (e.g. an EMR/Dataproc
  node or its Docker image) or use a container image with the dependencies.
  Uses ``venv-pack`` when installed (``pip install venv-pack``), else a plain
  tar of the venv with its script shebangs rewritten to be relative.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import tomllib
import zipfile
from importlib.metadata import requires
from pathlib import Path
from typing import Iterable, Optional

ZIP_NAME = "corpus_pipeline.zip"
DRIVER_NAME = "cli.py"
ENV_NAME = "environment.tar.gz"

_DRIVER_TEMPLATE = '''"""spark-submit driver: ``spark-submit ... jobs/cli.py COMMAND ARGS...`` = ``corpus-pipeline COMMAND ARGS...``."""
import sys

from corpus_pipeline.cli import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
'''

_SKIP_DIRS = {"__pycache__", ".pytest_cache", ".mypy_cache"}
_SKIP_SUFFIXES = (".pyc", ".pyo", ".so.tmp")


def package_dir() -> Path:
    return Path(__file__).resolve().parent


def project_root() -> Optional[Path]:
    """The source tree (folder holding ``pyproject.toml``), or None for an installed copy."""
    root = package_dir().parent
    return root if (root / "pyproject.toml").is_file() else None


def _files(base: Path, rel: str) -> Iterable[tuple[Path, str]]:
    top = base / rel
    if top.is_file():
        yield top, rel
        return
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS and not d.startswith("."))
        for name in sorted(filenames):
            if name.endswith(_SKIP_SUFFIXES) or name.startswith("."):
                continue
            p = Path(dirpath) / name
            yield p, p.relative_to(base).as_posix()


def zip_sources() -> list[tuple[Path, str]]:
    """(file, name in the zip) of everything the zip holds."""
    pkg = package_dir()
    out = list(_files(pkg.parent, pkg.name))
    root = project_root()
    if root is not None and (root / "seeds").is_dir():
        out += list(_files(root, "seeds"))
    return out


def build_zip(out_dir: str) -> str:
    """Write ``out_dir/corpus_pipeline.zip`` (deterministic order and timestamps)."""
    os.makedirs(out_dir, exist_ok=True)
    dst = os.path.join(out_dir, ZIP_NAME)
    tmp = dst + ".tmp"
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for path, name in zip_sources():
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            z.writestr(info, path.read_bytes())
    os.replace(tmp, dst)
    return dst


def write_driver(out_dir: str) -> str:
    """``out_dir/cli.py``: jobs/cli.py of the source tree, or the same few lines for an installed copy."""
    os.makedirs(out_dir, exist_ok=True)
    root = project_root()
    src = root / "jobs" / "cli.py" if root is not None else None
    text = src.read_text() if src is not None and src.is_file() else _DRIVER_TEMPLATE
    dst = os.path.join(out_dir, DRIVER_NAME)
    if not os.path.exists(dst) or Path(dst).read_text() != text:
        Path(dst).write_text(text)
    return dst


def zip_is_current(out_dir: str) -> bool:
    dst = os.path.join(out_dir, ZIP_NAME)
    if not os.path.exists(dst):
        return False
    built = os.path.getmtime(dst)
    sources = zip_sources()
    if any(p.stat().st_mtime > built for p, _ in sources):
        return False
    with zipfile.ZipFile(dst) as z:  # a deleted or added file also makes it stale
        return sorted(z.namelist()) == sorted(name for _, name in sources)


def ensure_zip(out_dir: str) -> tuple[str, bool]:
    """(zip path, rebuilt?) - reuses ``out_dir/corpus_pipeline.zip`` when it is up to date."""
    write_driver(out_dir)
    if zip_is_current(out_dir):
        return os.path.join(out_dir, ZIP_NAME), False
    return build_zip(out_dir), True


def build_wheel(out_dir: str) -> str:
    root = project_root()
    if root is None:
        raise RuntimeError("--wheel needs the source tree (pyproject.toml next to corpus_pipeline/)")
    before = set(os.listdir(out_dir)) if os.path.isdir(out_dir) else set()
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q",
                    "-w", out_dir, str(root)], check=True)
    new = sorted(n for n in os.listdir(out_dir) if n.endswith(".whl") and n not in before)
    cands = new or sorted(n for n in os.listdir(out_dir) if n.startswith("corpus_pipeline") and n.endswith(".whl"))
    return os.path.join(out_dir, cands[-1])


def _requirements(with_pyspark: bool) -> list[str]:
    """The project's dependencies from its metadata (installed distribution or pyproject.toml)."""
    reqs: list[str] = []
    root = project_root()
    if root is not None:
        reqs = list(tomllib.loads((root / "pyproject.toml").read_text())["project"]["dependencies"])
    else:
        reqs = [r for r in (requires("corpus_pipeline") or []) if "extra ==" not in r]
    if not with_pyspark:
        reqs = [r for r in reqs if not r.replace("_", "-").lower().startswith("pyspark")]
    return reqs


def _relative_shebangs(env_dir: str) -> None:
    """Scripts in bin/ point at ``#!/abs/path/bin/python``; make them find the unpacked env's python."""
    bindir = os.path.join(env_dir, "bin")
    for name in os.listdir(bindir):
        p = os.path.join(bindir, name)
        if os.path.islink(p) or not os.path.isfile(p):
            continue
        with open(p, "rb") as f:
            head = f.read(2)
            if head != b"#!":
                continue
            rest = f.read()
        first, _, body = rest.partition(b"\n")
        if b"python" not in first:
            continue
        new = (b"#!/bin/sh\n'''exec' \"$(dirname -- \"$(realpath -- \"$0\")\")/python\" \"$0\" \"$@\"\n' '''\n"
               + body)
        with open(p, "wb") as f:
            f.write(new)


def pack_env(out_dir: str, with_pyspark: bool = False, wheel: Optional[str] = None,
             python: Optional[str] = None, use_venv_pack: Optional[bool] = None) -> dict:
    """Build ``out_dir/environment.tar.gz`` from a fresh venv; returns figures (also in environment.json)."""
    t0 = time.monotonic()
    python = python or sys.executable
    os.makedirs(out_dir, exist_ok=True)
    wheel = wheel or build_wheel(out_dir)
    work = tempfile.mkdtemp(prefix="pack_env_")
    env_dir = os.path.join(work, "environment")
    try:
        subprocess.run([python, "-m", "venv", env_dir], check=True)
        pip = [os.path.join(env_dir, "bin", "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
        subprocess.run([*pip, *_requirements(with_pyspark)], check=True)
        subprocess.run([*pip, "--no-deps", wheel], check=True)
        t_install = time.monotonic() - t0
        dst = os.path.join(out_dir, ENV_NAME)
        if use_venv_pack is None:
            use_venv_pack = shutil.which("venv-pack") is not None or _has_module("venv_pack")
        if use_venv_pack:
            if os.path.exists(dst):
                os.remove(dst)
            subprocess.run([sys.executable, "-m", "venv_pack", "-p", env_dir, "-o", dst, "-q"], check=True)
            tool = "venv-pack"
        else:
            _relative_shebangs(env_dir)
            tmp = dst + ".tmp"
            with tarfile.open(tmp, "w:gz", compresslevel=6) as tar:
                for name in sorted(os.listdir(env_dir)):
                    tar.add(os.path.join(env_dir, name), arcname=name)
            os.replace(tmp, dst)
            tool = "tar"
        unpacked = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(env_dir) for f in fs
                       if not os.path.islink(os.path.join(d, f)))
        info = {
            "archive": dst, "tool": tool, "with_pyspark": with_pyspark,
            "archive_bytes": os.path.getsize(dst), "unpacked_bytes": unpacked,
            "python_prefix": os.path.realpath(os.path.join(env_dir, "bin", "python")),
            "python_version": subprocess.run([os.path.join(env_dir, "bin", "python"), "-c",
                                              "import sys; print(sys.version.split()[0])"],
                                             capture_output=True, text=True).stdout.strip(),
            "install_s": round(t_install, 1), "total_s": round(time.monotonic() - t0, 1),
        }
        Path(out_dir, "environment.json").write_text(json.dumps(info, indent=2) + "\n")
        return info
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _has_module(name: str) -> bool:
    return importlib.util.find_spec(name) is not None


def project_file(relpath: str) -> str:
    """A real path to a file shipped with the project (e.g. ``seeds/...``), also when
    ``corpus_pipeline`` was imported from the ``--py-files`` zip (the member is extracted
    once into a temporary folder)."""
    pkg = package_dir()
    root = pkg.parent
    direct = root / relpath
    if direct.exists():
        return str(direct)
    zpath = str(root)
    if zipfile.is_zipfile(zpath):
        cache = Path(tempfile.gettempdir()) / f"corpus_pipeline_files_{os.getuid()}_{int(os.path.getmtime(zpath))}"
        target = cache / relpath
        if not target.exists():
            with zipfile.ZipFile(zpath) as z:
                members = [n for n in z.namelist() if n == relpath or n.startswith(relpath.rstrip("/") + "/")]
                if not members:
                    raise FileNotFoundError(f"{relpath} is not in {zpath}")
                tmp = Path(tempfile.mkdtemp(dir=str(cache.parent), prefix=cache.name + ".tmp"))
                z.extractall(tmp, members)
                cache.mkdir(parents=True, exist_ok=True)
                for m in members:
                    dst = cache / m
                    dst.parent.mkdir(parents=True, exist_ok=True)
                    if not dst.exists():
                        os.replace(tmp / m, dst)
                shutil.rmtree(tmp, ignore_errors=True)
        return str(target)
    raise FileNotFoundError(f"{relpath} not found next to {pkg}")


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m corpus_pipeline.packaging", description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="dist", help="output folder (default: dist)")
    ap.add_argument("--wheel", action="store_true", help="also build the project wheel")
    ap.add_argument("--pack-env", action="store_true",
                    help=f"also build {ENV_NAME}: a venv with every dependency, for spark.archives")
    ap.add_argument("--with-pyspark", action="store_true", help="keep pyspark in the packed environment")
    ap.add_argument("--python", help="interpreter for the packed environment (default: this one)")
    a = ap.parse_args(argv)
    t0 = time.monotonic()
    z = build_zip(a.out)
    d = write_driver(a.out)
    print(f"{z} ({os.path.getsize(z) / 1e3:.0f} kB, {len(zip_sources())} files)")
    print(d)
    whl = None
    if a.wheel or a.pack_env:
        whl = build_wheel(a.out)
        print(whl)
    if a.pack_env:
        info = pack_env(a.out, with_pyspark=a.with_pyspark, wheel=whl, python=a.python)
        print(f"{info['archive']} ({info['archive_bytes'] / 1e6:.0f} MB packed, "
              f"{info['unpacked_bytes'] / 1e6:.0f} MB unpacked, {info['tool']}, {info['total_s']:.0f}s)")
        print(f"use: --archives {info['archive']}#environment --conf spark.pyspark.python=./environment/bin/python")
    print(f"done in {time.monotonic() - t0:.1f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
