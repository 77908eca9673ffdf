"""spark-submit entry point: ``spark-submit ... jobs/train.py --positives FILE --negatives FILE --out MODEL_DIR``."""
import sys

from corpus_pipeline.cli import main

if __name__ == "__main__":
    sys.exit(main(["train"] + sys.argv[1:]))
