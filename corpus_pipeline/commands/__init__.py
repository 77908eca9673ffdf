"""One module per `corpus-pipeline` command: add_arguments(parser), plan(args, cfg), run(args, cfg)."""

# `ingest --input` and `run --input` take the same sources (both go through sources.resolve)
INPUT_HELP = ("WARC files to read, one or more: a WARC file, glob or directory; "
              "s3://bucket/key or prefix; hdfs://, gs://, abfs:// or file:// (any Hadoop filesystem); "
              "an https:// URL; or a warc.paths(.gz) manifest.")
