"""How strong a new password must be: zxcvbn (Dropbox's estimator) score 3 or more, which
refuses common passwords, keyboard walks, repeats and dates that a length rule lets through.
Only new passwords are judged (sign-up, a new account by invitation); signing in never is."""

from __future__ import annotations

from collections.abc import Sequence

from zxcvbn import zxcvbn

from regintel.errors import InvalidRequest

MIN_LENGTH = 8
MIN_SCORE = 3  # "safely unguessable: moderate protection from offline slow-hash scenario"
# zxcvbn's run time grows with the length; the first 100 characters are plenty to judge.
_JUDGED_CHARS = 100


def weakness(password: str, user_inputs: Sequence[str] = ()) -> str | None:
    """Why ``password`` is refused, in words for the user, or None if it is strong enough.
    ``user_inputs`` (e-mail, name, organisation) count as easy to guess."""
    if len(password) < MIN_LENGTH:
        return f"the password must have at least {MIN_LENGTH} characters"
    words = [part for value in user_inputs if value
             for part in (value, *value.replace("@", " ").replace(".", " ").split())]
    result = zxcvbn(password[:_JUDGED_CHARS], user_inputs=words)
    if int(result["score"]) >= MIN_SCORE:
        return None
    feedback = result.get("feedback") or {}
    reasons = [str(feedback.get("warning") or "it is too easy to guess"),
               *(str(s) for s in feedback.get("suggestions") or [])]
    return "the password is too weak: " + " ".join(
        r if r.endswith(".") else f"{r}." for r in reasons if r)


class WeakPassword(InvalidRequest):
    """A new password that is too easy to guess; the message says why."""

    code = "weak_password"
