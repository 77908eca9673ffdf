"""spark-submit entry point: ``spark-submit ... jobs/score.py --model MODEL_DIR --input FILE --out FILE``."""
import sys

from corpus_pipeline.cli import main

if __name__ == "__main__":
    sys.exit(main(["score"] + sys.argv[1:]))
