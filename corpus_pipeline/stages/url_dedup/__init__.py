"""URL dedup, one folder: ``stage.py`` (the stage) and ``step.py`` (its DataFrame step). Its key, the
normalized URL's page_id, is computed while extracting (``dedup/url.py``): no rules of its own here."""
