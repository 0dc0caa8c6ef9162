"""Build tools of the course: student and instructor notebooks, slide decks (``python -m tools.course``)."""
