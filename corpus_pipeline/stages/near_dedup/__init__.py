"""Near dedup, one folder: ``stage.py`` (the stage: its settings, output and commit), ``step.py`` (its
DataFrame step, on the engine) and ``rules.py`` (its pure rules, no Spark).  The package imports none of
them, so an executor loading the rules loads neither Spark's layer nor the recipe."""
