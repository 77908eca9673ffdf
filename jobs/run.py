"""spark-submit entry point for the whole loop: ``spark-submit ... jobs/run.py --input SRC --run RUN ...``."""
import sys

from corpus_pipeline.cli import main

if __name__ == "__main__":
    sys.exit(main(["run", *sys.argv[1:]]))
