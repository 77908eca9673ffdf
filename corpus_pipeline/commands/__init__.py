"""One module per CLI command: add_arguments(parser), plan(args, cfg), run(args, cfg)."""
