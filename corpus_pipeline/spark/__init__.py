"""The Spark layer: the only place (with jobs/) that imports pyspark.

Everything here applies the pure, Spark-free functions of the stage modules
with ``mapPartitions``, joins and Parquet I/O.
"""
