"""Reproductions of method papers' figures: one module per paper, one function per figure."""
