"""Tournaments: Sit & Go and Arena on the live tables (docs/features.md, "Tournaments")."""
