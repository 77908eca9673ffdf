"""The recipe as a list of stages, and the one runner that walks it.

* :mod:`.stage`: what a stage declares (name, output folder, schema, the stages
  it reads, the config keys that shape its result, a build function).
* :mod:`.recipe`: the recipe itself, top to bottom: ingest, each iteration,
  the final step.  Adding a stage is one class and one list insertion.
* :mod:`.runner`: skips committed stages, checks changed settings, builds,
  counts and commits; ``ctx.read("scores", i)`` is how a stage reads another's
  output.
* :mod:`.settings`: the settings check of a rerun (refuse, or ``--recompute``
  from the first changed stage).
* :mod:`.runview`: one way to read a run after the fact (report, inspect, annotate,
  judge): stages by name, from the stage list the loop records in ``run.json``.
* :mod:`.ingest`, :mod:`.iteration`, :mod:`.final`: the stages of the recipe;
  their per-row and per-table work is in :mod:`corpus_pipeline.spark`.
"""
