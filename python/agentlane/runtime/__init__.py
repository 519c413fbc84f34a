"""The built-in engine's staged turn (anchor-plan → tool-loop → synthesize → post-turn) in Python."""
