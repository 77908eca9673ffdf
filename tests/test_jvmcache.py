"""The driver JVM's class archive (corpus_pipeline.spark.jvmcache): where it lives, what its key
depends on, when a starting JVM maps it or writes it.  No JVM here; tests/e2e/test_spark_log_e2e.py
writes a real archive and checks that a JVM loads Spark's classes from it."""
from __future__ import annotations

import os

import pytest

from corpus_pipeline.config import SparkConfig
from corpus_pipeline.spark import jvmcache
from corpus_pipeline.spark.session import _driver_options


@pytest.fixture
def fake_java(tmp_path, monkeypatch):
    """A JAVA_HOME and a SPARK_HOME of our own, and an empty cache folder."""
    java = tmp_path / "jdk" / "bin" / "java"
    java.parent.mkdir(parents=True)
    java.write_text("#!/bin/sh\n")
    jars = tmp_path / "spark" / "jars"
    jars.mkdir(parents=True)
    (jars / "spark-core.jar").write_bytes(b"x" * 10)
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "jdk"))
    monkeypatch.setenv("SPARK_HOME", str(tmp_path / "spark"))
    monkeypatch.setenv("CORPUS_PIPELINE_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv(jvmcache.DUMP_ENV, raising=False)
    return java, jars, tmp_path / "cache"


def test_cache_folder_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("CORPUS_PIPELINE_CACHE", str(tmp_path / "c"))
    assert jvmcache.cache_dir() == str(tmp_path / "c")
    monkeypatch.delenv("CORPUS_PIPELINE_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert jvmcache.cache_dir() == str(tmp_path / "xdg" / "corpus_pipeline")
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert jvmcache.cache_dir() == str(tmp_path / "home" / ".cache" / "corpus_pipeline")


def test_the_key_changes_with_the_jars_and_the_java_binary(fake_java):
    java, jars, _ = fake_java
    k0 = jvmcache.archive_key()
    assert k0 and k0 == jvmcache.archive_key()              # the same machine, the same key
    (jars / "hadoop-aws.jar").write_bytes(b"y")             # a jar added to the class path
    k1 = jvmcache.archive_key()
    assert k1 != k0
    java.write_text("#!/bin/sh\n# another build\n")           # another JDK in the same place
    assert jvmcache.archive_key() not in (k0, k1)
    assert os.path.basename(jvmcache.default_archive()) == f"jvm-classes-{jvmcache.archive_key()}.jsa"


def test_no_java_no_key(fake_java, monkeypatch, tmp_path):
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "nowhere"))
    assert jvmcache.archive_key() is None and jvmcache.default_archive() is None
    assert jvmcache.archive_to_use("auto") is None


def test_which_archive_a_starting_jvm_maps(fake_java, tmp_path):
    _, _, cache = fake_java
    assert jvmcache.archive_to_use("auto") is None          # not written yet: the JVM starts without one
    assert jvmcache.jvm_options("auto") == ""
    cache.mkdir()
    target = jvmcache.default_archive()
    open(target, "wb").close()
    assert jvmcache.archive_to_use("auto") is None          # an empty file is not an archive
    with open(target, "wb") as f:
        f.write(b"\0" * 64)
    assert jvmcache.archive_to_use("auto") == target
    assert jvmcache.jvm_options("auto").startswith(f"-XX:SharedArchiveFile={target} -Xshare:auto")
    for off in ("off", "", "OFF", "false"):
        assert jvmcache.archive_to_use(off) is None and jvmcache.jvm_options(off) == ""
    other = tmp_path / "mine.jsa"
    assert jvmcache.archive_to_use(str(other)) is None      # a named file that is not there
    other.write_bytes(b"\0" * 8)
    assert jvmcache.archive_to_use(str(other)) == str(other)


def test_the_archive_writing_child_dumps_instead_of_mapping(fake_java, monkeypatch, tmp_path):
    _, _, cache = fake_java
    cache.mkdir()
    with open(jvmcache.default_archive(), "wb") as f:
        f.write(b"\0" * 64)
    monkeypatch.setenv(jvmcache.DUMP_ENV, str(tmp_path / "new.jsa.tmp1"))
    opts = jvmcache.jvm_options("auto")
    assert opts.startswith(f"-XX:ArchiveClassesAtExit={tmp_path / 'new.jsa.tmp1'} ")
    assert "SharedArchiveFile" not in opts


def test_driver_options_put_the_archive_after_the_configured_options(fake_java):
    _, _, cache = fake_java
    cache.mkdir()
    with open(jvmcache.default_archive(), "wb") as f:
        f.write(b"\0" * 64)
    opts = _driver_options(SparkConfig())
    assert opts.startswith("-XX:TieredStopAtLevel=1 -XX:SharedArchiveFile=")
    assert _driver_options(SparkConfig(class_archive="off")) == "-XX:TieredStopAtLevel=1"
    assert _driver_options(SparkConfig(class_archive="off", driver_java_options="")) == ""


def test_prune_removes_leftover_temporary_files_and_keeps_other_archives(tmp_path):
    keep = tmp_path / "jvm-classes-new.jsa"
    for name in ("jvm-classes-new.jsa", "jvm-classes-old.jsa", "jvm-classes-new.jsa.tmp123", "notes.txt"):
        (tmp_path / name).write_bytes(b"1")
    gone = jvmcache.prune(str(keep))
    assert sorted(os.path.basename(p) for p in gone) == ["jvm-classes-new.jsa.tmp123"]
    # another virtualenv's archive (other jars, another key) is still that virtualenv's
    assert sorted(os.listdir(tmp_path)) == ["jvm-classes-new.jsa", "jvm-classes-old.jsa", "notes.txt"]
