"""What a checker returns: whether the answer is right, what was checked, and a hint when it is not."""

from __future__ import annotations

import html
from dataclasses import dataclass

__all__ = ["Feedback"]


@dataclass(frozen=True)
class Feedback:
    """The verdict of an exercise checker, shown in the notebook under the cell that called it.

    Parameters
    ----------
    exercise : str
        The exercise's number and title, e.g. ``"1.2 Sensitivity of a sum"``.
    passed : bool
        Whether the answer is right.
    message : str
        What was checked and what was found (never the expected answer itself when the answer is wrong).
    hint : str, default ""
        What to reconsider when the answer is wrong (empty when it is right).

    Examples
    --------
    >>> fb = Feedback("1.1 Sensitivity of a count", True, "1 is right: one person changes the count by at most 1.")
    >>> bool(fb), str(fb).startswith("[correct] 1.1")
    (True, True)
    """

    exercise: str
    passed: bool
    message: str
    hint: str = ""

    def __bool__(self) -> bool:
        return self.passed

    def __str__(self) -> str:
        head = f"[{'correct' if self.passed else 'not yet'}] {self.exercise}: {self.message}"
        return head if self.passed or not self.hint else f"{head}\nHint: {self.hint}"

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        colour, mark = ("#0072B2", "&#10004; Correct") if self.passed else ("#D55E00", "&#10008; Not yet")
        hint = "" if self.passed or not self.hint else f"<br><b>Hint:</b> {html.escape(self.hint)}"
        return (f'<div style="border-left: 4px solid {colour}; padding: 4px 10px; margin: 4px 0">'
                f'<b style="color: {colour}">{mark}</b> &mdash; <i>{html.escape(self.exercise)}</i><br>'
                f"{html.escape(self.message)}{hint}</div>")
