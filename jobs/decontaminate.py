"""spark-submit entry point: ``spark-submit ... jobs/decontaminate.py --input FILE --benchmarks DIR --out DIR``."""
import os
import sys

from corpus_pipeline.cli import main

if __name__ == "__main__":
    if os.environ.get("PYSPARK_GATEWAY_PORT"):
        # launched by spark-submit: connect to its JVM first, so SparkConf() sees --master/--conf
        from pyspark import SparkContext

        SparkContext._ensure_initialized()
    sys.exit(main(["decontaminate", *sys.argv[1:]]))
