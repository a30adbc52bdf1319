"""A small, curated toxicity lexicon: abuse aimed at someone, slurs, and threats.

Whole words only, so compliance vocabulary stays clear: "terrorist financing", "kill switch",
"fraud", "abuse of market" / "market abuse", "child abuse material", "sexual harassment
policy" are what the product is about, not toxic language. Threats are phrases ("I will kill
you"), never single words like "kill" or "bomb". Light obfuscation ("f*ck", "sh1t",
"i d i o t") is undone before matching."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

ToxicCategory = Literal["abuse", "slur", "threat"]

_ABUSE = (
    r"f+u+c+k+(?:ing|er|ers|ed|s|wit|face|head)?", r"motherf+u+c+k+(?:er|ers|ing)?",
    r"sh[i1]t(?:head|heads|face)?", r"bullshit", r"c+u+n+t+s?", r"bitch(?:es)?",
    r"bastards?", r"ass ?holes?", r"arse ?holes?", r"dick ?heads?", r"wankers?", r"twats?",
    r"pricks?", r"morons?", r"imbeciles?", r"idiots?", r"dumb ?ass(?:es)?", r"scumbags?",
    r"piece of shit", r"son of a bitch", r"go to hell", r"shut up", r"stfu", r"screw you",
    r"sluts?", r"whores?", r"useless (?:piece of|pile of) \w+",
    # German, and the other languages the injection set mixes in
    r"schei(?:ss|ß)e", r"arschloch", r"hurensohn", r"wichser", r"fotze", r"missgeburt",
    r"jebi mater\w*", r"puta madre", r"hijo de puta", r"connard", r"salope",
)
_SLURS = (
    r"n[i1]gg(?:er|a|as|ers|az)", r"f[a@]gg?(?:ot|ots|s)?", r"k[iy]kes?", r"sp[i1]cs?",
    r"ch[i1]nks?", r"tranny|trannies", r"retards?", r"retarded", r"wetbacks?",
    r"gooks?", r"towel ?heads?", r"raghead", r"sand ?n[i1]gg\w*", r"paki",
)
_THREATS = (
    r"(?:i|we)(?:'ll| will| am going to|'m going to| gonna) (?:kill|murder|hurt|shoot|stab|"
    r"beat|destroy|find|rape|bomb|burn) (?:you|u|ya|your \w+|them|him|her|everyone)",
    r"kill (?:yourself|urself|your ?self)", r"\bkys\b", r"you(?:'re| are) (?:dead|going to die)",
    r"you will die", r"(?:hope|wish) you (?:die|get (?:hurt|killed|cancer))",
    r"i know where you live", r"(?:watch|sleep with) one eye open",
    r"(?:blow|burn) (?:up |down )?(?:your|the) (?:office|house|building|home)",
    r"du stirbst", r"ich (?:bringe|töte) dich",
)


def _compile(words: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(r"(?<![\w])(?:" + "|".join(words) + r")(?![\w])", re.IGNORECASE)


_LEXICON: tuple[tuple[ToxicCategory, re.Pattern[str]], ...] = (
    ("threat", _compile(_THREATS)), ("slur", _compile(_SLURS)), ("abuse", _compile(_ABUSE)),
)
_LEET = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a",
                       "$": "s", "!": "i"})
_MASKED_VOWEL = re.compile(r"(?<=[a-z])[*#](?=[a-z])", re.IGNORECASE)
_SPACED = re.compile(r"\b(?:[a-z] ){3,}[a-z]\b", re.IGNORECASE)


@dataclass(frozen=True)
class ToxicityResult:
    toxic: bool
    category: ToxicCategory | None = None
    terms: tuple[str, ...] = field(default=())


def _variants(text: str) -> list[str]:
    """The text, with leetspeak undone, with masked vowels ("f*ck") and spaced-out letters
    ("i d i o t") closed up: a word counts if any variant has it."""
    leet = " ".join(w.translate(_LEET) if any(c.isalpha() for c in w) else w
                    for w in text.split())
    joined = _SPACED.sub(lambda m: m.group(0).replace(" ", ""), leet)
    masked = [_MASKED_VOWEL.sub(vowel, joined) for vowel in "aeiou"] \
        if _MASKED_VOWEL.search(joined) else []
    return list(dict.fromkeys((text, leet, joined, *masked)))


class ToxicityChecker:
    def check(self, text: str) -> ToxicityResult:
        for category, pattern in _LEXICON:
            terms = {m.group(0).lower() for variant in _variants(text)
                     for m in pattern.finditer(variant)}
            if terms:
                return ToxicityResult(True, category, tuple(sorted(terms)))
        return ToxicityResult(False)
