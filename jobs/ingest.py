"""spark-submit entry point: ingest WARCs into RUN/pages.

    spark-submit jobs/ingest.py --input SRC... --run RUN [--config FILE] [--set k=v]...
"""
import sys

from corpus_pipeline.cli import main

if __name__ == "__main__":
    sys.exit(main(["ingest"] + sys.argv[1:]))
