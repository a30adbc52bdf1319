"""Known prompt-injection phrasings, as regular expressions with a name each.

They catch the attacks a model trained on a few hundred prompts can miss (short imperatives,
German and other-language variants, jailbreak personas), and they are what a reviewer can read.
Each rule addresses the assistant itself — its instructions, prompt, role or output — so the
compliance vocabulary a user asks about ("may a firm disregard…", "must the Relevant Person
ignore…") does not match: ``tests/unit/guardrails`` runs every ObliQA question against them."""

from __future__ import annotations

import re
from dataclasses import dataclass

_F = re.IGNORECASE | re.UNICODE

# What an attacker tells the assistant to drop: its instructions, not a firm's obligations.
# Compliance questions say "disregard prior orders", "ignore previous rules", "the articles of
# association", so orders, rules, information and articles are not targets here; and a target
# counts only when qualified as earlier ("previous", "above"), as the assistant's ("your") or
# as all of them.
_EN_TARGET = (r"(?:instructions?|prompts?|commands?|assignments?|tasks?|programming|"
              r"guardrails?|directives?|context|conversation|messages?)")
# For "all …" without "previous": only what can be nothing but the assistant's instructions.
_EN_OWN = (r"(?:instructions?|prompts?|programming|guardrails?|directives?|commands?|"
           r"assignments?|tasks?|context|conversation)")
_EN_DROP = r"(?:ignore|disregard|forget|skip|drop|abandon|override|bypass|neglect)"
_EN_EARLIER = (r"(?:previous|prior|preceding|above|earlier|former|foregoing|original|initial|"
               r"old|provided|given)")
_EN_LEAD = rf"\b{_EN_DROP}\s+(?:about\s+)?"

RULES: tuple[tuple[str, str], ...] = (
    # English: drop your instructions
    ("ignore_previous", rf"{_EN_LEAD}(?:(?:all|any|every)\s+(?:of\s+)?)?(?:the\s+|your\s+|my\s+|"
                        rf"these\s+|those\s+)?{_EN_EARLIER}\s+(?:\w+\s+)?{_EN_TARGET}\b"),
    ("ignore_yours", rf"{_EN_LEAD}(?:all\s+(?:of\s+)?)?your\s+(?:\w+\s+)?(?:{_EN_TARGET}|rules|"
                     r"guidelines|restrictions|training|filters?|policies)\b"),
    ("ignore_all", rf"{_EN_LEAD}all\s+(?:of\s+)?(?:the\s+)?{_EN_OWN}\b"),
    ("ignore_above", rf"{_EN_LEAD}(?:everything|all\s+(?:of\s+)?(?:that|this)|(?:all\s+)?"
                     r"(?:of\s+)?the\s+above|above|what\s+(?:i|you|we)\s+(?:said|told|know|"
                     r"discussed))"),
    ("forget_everything", r"\bforget\s+(?:about\s+)?(?:everything|all\s+(?:that|of|you|the)|"
                          r"what\s+(?:we|i|you))"),
    ("disregarding", r"\b(?:disregarding|ignoring)\s+(?:the|any|all|your)\s+"
                     r"(?:provided\s+)?(?:articles?|documents?|context|instructions?)\b(?!\s+of\b)"),
    ("not_by_documents", r"\b(?:not|never)\s+(?:by|from|according\s+to|based\s+on)\s+(?:the\s+)?"
                         r"(?:provided\s+)?(?:articles?|documents?|context|sources)\b(?!\s+of\b)"),
    ("do_not_look", r"\b(?:do\s*n[o']?t|don'?n?t|never)\s+(?:look\s+(?:in|at)|use|read|consult)"
                    r"\s+the\s+(?:provided\s+)?(?:documents?|articles?|context)"),
    ("dont_answer_but", r"\b(?:do\s*n[o']?t|don'?n?t)\s+answer\s+(?:this|the)\s+question\s+but\b"),
    ("new_task", r"\b(?:now\s+)?(?:focus|concentrate)\s+on\s+(?:your|the)\s+new\s+task\b|"
                 r"\bnew\s+(?:tasks|instructions)\s+(?:follow|are\s+following|:)|"
                 r"\bfurther\s+tasks\s+(?:are\s+)?follow|\bstart\s+over\s+with\s+a\s+new\s+task|"
                 r"\badditional\s+instruction\s*[-:]"),
    ("change_instructions", r"\b(?:change|update|replace)\s+your\s+instructions\b|"
                            r"\byour\s+(?:new\s+)?instructions\s+are\s+now\b"),
    ("leave_behind", r"\b(?:leave|put)\s+all\s+(?:the\s+)?previous\s+(?:information|"
                     r"instructions|tasks)\s+behind\b|\bremove\s+all\s+previous\s+tasks\b|"
                     r"\babandon\s+all\s+your\s+thoughts\b"),
    ("previous_irrelevant", r"\ball\s+(?:the\s+)?previous\s+information\s+(?:you\s+(?:have\s+)?"
                            r"received\s+)?(?:is|was)\s+(?:irrelevant|not)"),
    # English: reveal or repeat the prompt
    ("system_prompt", r"\b(?:system|initial|original|hidden|secret|full|previous)\s+prompt\b|"
                      r"\b(?:your|the|all|my)\s+prompt[\s_-]?texts?\b|\bbeginning\s+of\s+(?:this|the)\s+prompt\b|"
                      r"\binformation\s+in\s+the\s+prompt\b"),
    ("reveal_instructions", r"\b(?:reveal|show|print|display|repeat|output|tell\s+me|list|leak|"
                            r"share|what\s+(?:are|were))\s+(?:me\s+)?(?:all\s+)?(?:of\s+)?your\s+"
                            r"(?:\w+\s+)?(?:instructions|system\s+message|guidelines|rules|"
                            r"configuration|programming)\b"),
    ("what_is_written_above", r"\bwhat\s+(?:is|was)\s+written\s+(?:above|before|at\s+the\s+)|"
                              r"\b(?:\d+|two|three)\s+sentences\s+before\s+the\s+text\b"),
    # English: become someone else
    ("you_are_now", r"\byou\s+are\s+now\b|\bfrom\s+now\s+on,?\s+(?:you|act|respond|answer)\b|"
                    r"\bnow\s+you\s+are\s+\w+|\bnow\s+you\s+act\b"),
    ("act_as", r"\b(?:i\s+want\s+you\s+to\s+)?act\s+as\s+(?:a|an|the|if|my)?\s*(?:[\w-]+\s+){0,3}"
               r"(?:terminal|interpreter|translator|debater|bot|dan|ai|assistant|character|"
               r"persona|console|shell|entities)\b|\bi\s+want\s+you\s+to\s+act\b|"
               r"\bnow\s+you\s+act\s+as\b"),
    ("pretend", r"\bpretend\s+(?:to\s+be|you\s+(?:are|can|have)|that\s+you)\b|"
                r"\brole[\s-]?play(?:ing)?\b|"
                r"\b(?:stay|remain)\s+(?:fully\s+)?in\s+(?:their\s+|your\s+)?(?:character|roles?)\b|"
                r"\b(?:do\s+not|don'?t|never)\s+break\s+character\b"),
    ("jailbreak", r"(?-i:\bDAN\b)|\bdo\s+anything\s+now\b|\bjail\s*break|"
                  r"\bdeveloper\s+mode\b|\bno\s+(?:programming\s+)?guidelines\b|"
                  r"\bcompletely\s+immoral\b|\bwithout\s+any\s+(?:restrictions|filters)\b"),
    # not "only write": insurers write business
    ("just_say", r"\b(?:just|only)\s+(?:say|output|print|reply\s+with|respond\s+with)\b|"
                 r"\bjust\s+output\b|\brepeat\s+after\s+me\b|\bsay\s+that\s+you\s+(?:hate|love)\b"),
    ("stop_write", r"(?:^|[.!?]\s*)(?:attention\s*-\s*)?stop\s*[:,!-]+\s*(?:ignore|write|say|"
                   r"i\s+urgently|now)\b"),
    ("make_something_up", r"\bmake\s+something\s+up\b|\bdespite\s+what\s+you'?ve\s+been\s+told\b"),
    ("spaced_letters", r"(?:\b\w\s){7,}\w\b"),
    # German
    ("de_vergiss", r"\b(?:vergiss|vergessen\s+sie|ignoriere|ignorieren\s+sie|missachte|"
                   r"missachten\s+sie)\s+(?:nun\s+|jetzt\s+)?(?:bitte\s+)?(?:alles|alle|die|deine|"
                   r"ihre|sämtliche|vorherige|bisherige)\b"),
    ("de_ignorieren", r"\b(?:obigen|vorherigen|bisherigen|vorangehenden)\s+(?:ausführungen|"
                      r"anweisungen|instruktionen|befehle|aufgaben|informationen)\b"),
    ("de_abweichend", r"\babweichend\s+(?:zu|von)\s+(?:den\s+)?vorherigen\b"),
    ("de_neue_aufgabe", r"\b(?:nun|jetzt)\s+folgen\s+(?:neue|weitere)\s+(?:aufgaben|"
                        r"anweisungen)\b|\bneue\s+aufgabe\s*:|\bkonzentriere\s+dich\s+jetzt\b"),
    ("de_du_bist", r"\b(?:jetzt|nun)\s+bist\s+du\b|\bdu\s+bist\s+(?:jetzt|nun|ab\s+sofort)\b|"
                   r"\bstell\s+dir\s+vor,?\s+du\s+bist\b|\btu\s+so,?\s+als\b|"
                   r"\bals\s+[\w-]+(?:\s+[\w-]+){0,3}\s+fungieren\b|\bin\s+deiner\s+rolle\b"),
    ("de_prompt", r"\bprompt-?texte?s?\b|\bim\s+stil(?:e)?\s+eine[sr]?\b.*\b(?:antworte|"
                  r"beantworte)|\bantworte\s+im\s+stil\b"),
    ("de_stopp", r"\bachtung\s*-\s*stopp\b"),
    # Other languages seen in attacks
    ("es_olvida", r"\bolvid[ae](?:r)?\s+(?:todo|todas)\b|\btienes\s+que\s+olvidar\b"),
    ("fr_oubliez", r"\boubliez\s+(?:toutes?|tout)\b|\bignorez\s+(?:toutes?|les)\b"),
    ("hr_zaboravi", r"\bzaboravi\s+sve\b"),
    ("ru_zabud", r"\bзабуд\w*\s+вс[её]\w*|\bигнорир\w*\s+(?:все|предыдущ)"),
)

_COMPILED = tuple((name, re.compile(pattern, _F)) for name, pattern in RULES)


@dataclass(frozen=True)
class RuleHit:
    rule: str
    start: int
    end: int


def rule_hits(text: str) -> list[RuleHit]:
    """Every rule that matches ``text``, first match of each."""
    hits = []
    for name, pattern in _COMPILED:
        found = pattern.search(text)
        if found:
            hits.append(RuleHit(name, found.start(), found.end()))
    return hits
