"""The per-family halves of scripts/make_fixtures.py (one module per model family, for what really differs:
model class, config, checkpoint layouts, processor, reference tensors) and common.py (what they share)."""
