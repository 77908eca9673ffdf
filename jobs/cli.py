"""spark-submit driver: ``spark-submit ... jobs/cli.py COMMAND ARGS...`` = ``corpus-pipeline COMMAND ARGS...``."""
import sys

from corpus_pipeline.cli import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
