"""The same code on pyspark 3.5 (EMR 7, Dataproc 2.2) and 4.x: things whose API differs between them."""
from __future__ import annotations

import pytest

from corpus_pipeline import schemas
from corpus_pipeline.spark.io import struct

pytestmark = pytest.mark.spark

DDLS = {k: v for k, v in vars(schemas).items() if k.isupper() and isinstance(v, str) and " STRING" in v}


@pytest.mark.parametrize("name", sorted(DDLS))
def test_struct_equals_sparks_own_ddl_parser(spark, name):
    from pyspark.sql import types as T

    ddl = DDLS[name]
    # StructType.fromDDL exists from 4.0 on; _parse_datatype_string (through the JVM) on both
    assert struct(ddl) == T._parse_datatype_string(ddl)
    if hasattr(T.StructType, "fromDDL"):
        assert struct(ddl) == T.StructType.fromDDL(ddl)


def test_struct_falls_back_for_nested_types(spark):
    s = struct("a STRING, b ARRAY<STRING>")
    assert [f.name for f in s.fields] == ["a", "b"] and s.fields[1].dataType.elementType.typeName() == "string"
