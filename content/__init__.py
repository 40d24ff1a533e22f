"""Authored tracks, their schema and loader."""

from content.loader import Catalog, ContentError, Problem, default_catalog, export, load_catalog
from content.schema import Bite, KeyPoint, Question, Track

__all__ = ["Bite", "Catalog", "KeyPoint", "ContentError", "Problem", "Question", "Track", "default_catalog", "export", "load_catalog"]
