"""The development policies the offline audit is built and tuned on, and the test policy it is
scored on once. The project reports the audit's recall on the demo policy (Falcon Crest,
tests/data/aml_policy_gaps.json), so neither the thresholds nor the engine's rules may be
chosen on it. Two development policies are written apart from it, with other wording,
other structures and gaps planted against other rules: Oryx Wealth Partners
(src/regintel/demo/dev/oryx_policy.md, tests/data/oryx_policy_gaps.json), on which the
thresholds were tuned, and Sandgrouse Capital Markets (sandgrouse_policy.md,
sandgrouse_policy_gaps.json), written later by someone who never read the engine, which
showed how far Oryx had shaped it (2 of 14 found at first). A third, Kestrel Corporate
Services (kestrel_policy.md, kestrel_policy_gaps.json: a company service provider, 14 gaps,
written the same way), was first audited by the engine that found 9 of Sandgrouse's 14 and
12 of Oryx's 13: it found 4 of 14, precision 0.15 - the fairest estimate of how the engine
does on a policy it has never seen. A fourth, Heron Remit & Payments (heron_policy.md,
heron_policy_gaps.json: a money services firm, 14 gaps, written the same way in the
fifteenth session), was first audited by the engine that found 12 of 13, 12 of 14 and 12 of
14 on the other three: 4 of 14, precision 0.18 (five of its gaps, against rules the demo
policy's gaps use too, were later made compliant and dropped: 9 gaps). A fifth, Plover
Bullion & Gems (plover_policy.md, plover_policy_gaps.json: a dealer in precious metals and
stones, a DNFBP, 14 gaps, half of them single items of long lists, written the same way in the
sixteenth session), was first audited by the engine that found 12 of 13, 12 of 14, 12 of 14
and 5 of 9 on the other four: 2 of 14, precision 0.071. A sixth, Bittern Property Advisors
(bittern_policy.md, bittern_policy_gaps.json: a real-estate agent, a DNFBP, written the same
way in the seventeenth session with 14 gaps, seven of whose rules turned out to be planted in
the demo policy too and were made compliant: five replaced blind, two dropped, 12 gaps), was
first audited by the engine that found 12 of 13, 12 of 14, 12 of 14, 5 of 9 and 9 of 14 on
the other five: 4 of 12, precision 0.129 (every one an omission; none of its 6
contradictions). A seventh, Curlew Asset Management (curlew_policy.md,
curlew_policy_gaps.json: an Authorised Person managing funds and portfolios, 14 gaps on rules
no other gap file uses, written the same way in the eighteenth session), was first audited by
the engine that found 12 of 13, 12 of 14, 12 of 14, 5 of 9, 10 of 14 and 6 of 12 on the other
six: 3 of 14, precision 0.097. An eighth, Godwit Private Bank (godwit_policy.md,
godwit_policy_gaps.json: a bank, an Authorised Person with correspondent accounts and wire
transfers, 14 gaps, written the same way in the nineteenth session), was first audited by the
engine that found 12 of 13, 12 of 14, 12 of 14, 5 of 9, 10 of 14, 7 of 12 and 6 of 14 on the
other seven: 3 of 14, precision 0.103. A ninth, Redshank Partners (redshank_policy.md,
redshank_policy_gaps.json: chartered accountants and tax advisers, a DNFBP acting as company
service provider and trustee, 14 gaps, written the same way in the twentieth session), was
first audited by the engine that found 12 of 13, 12 of 14, 12 of 14, 4 of 9, 10 of 14, 7 of
12, 6 of 14 and 6 of 14 on the other eight: 1 of 14, precision 0.036 (7 of the 13 it missed
sit in rules the audit never read: headings such as "Trusteeship" or "What CDD involves"
search poorly, and one rule has no "must"). A tenth, Shearwater Digital Markets
(shearwater_policy.md, shearwater_policy_gaps.json: a virtual asset trading platform and
custodian, an Authorised Person, 14 gaps on rules no other gap file uses, written the same way
in the twenty-first session), was first audited by the engine that found 12 of 13, 12 of 14,
12 of 14, 4 of 9, 10 of 14, 7 of 12, 6 of 14, 8 of 14 and 4 of 14 on the other nine: 2 of
14, precision 0.069. An eleventh, Avocet Life Assurance (avocet_policy.md,
avocet_policy_gaps.json: a long-term insurer, an Authorised Person, 14 gaps on rules no other
gap file uses, written the same way in the twenty-second session), was first audited by the
engine that found 12 of 13, 12 of 14, 12 of 14, 4 of 9, 10 of 14, 8 of 12, 6 of 14, 8 of 14,
7 of 14 and 7 of 14 on the other ten: 1 of 14, precision 0.036. A twelfth, Egret Chambers
(egret_policy.md, egret_policy_gaps.json: a law firm, a DNFBP, 14 gaps on rules no other gap
file uses, written the same way in the twenty-second session), was first audited by the
engine that found 12 of 13, 12 of 14, 12 of 14, 4 of 9, 10 of 14, 8 of 12, 6 of 14, 8 of 14,
7 of 14, 8 of 14 and 7 of 14 on the other eleven: 1 of 14, precision 0.037.

Each development policy is a markdown source under src/regintel/demo/dev with its planted gaps
under tests/data; ``regintel.demo.build_policy.render`` renders its PDF from the source and its
letterhead (tests/chat/test_offline_audit.py checks the stored PDF is that rendering).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from regintel.demo.build_policy import Letterhead
from regintel.demo.corpus import POLICY_PDF

_DATA = Path(__file__).resolve().parents[2] / "tests" / "data"
# The sources sit in the package beside the demo policy, though the wheel leaves them out.
_DEV = POLICY_PDF.parents[1] / "dev"
TEST_PDF = POLICY_PDF
TEST_GAPS = _DATA / "aml_policy_gaps.json"


@dataclass(frozen=True)
class DevPolicy:
    """A development policy: its markdown source, the PDF rendered from it, its planted
    gaps and how it presents itself."""

    name: str
    source: Path
    gaps: Path
    letterhead: Letterhead
    title: str

    @property
    def pdf(self) -> Path:
        return self.source.with_suffix(".pdf")


def _letterhead(company: str, document: str, edition: str, classification: str,
                date: str) -> Letterhead:
    """A development policy's metadata and footer, all written one way ("version 3.1" in the
    subject, "Version 3.1" in the footer; no edition when the policy names none)."""
    return Letterhead(
        title=f"{company} — {document}", author=company,
        subject=f"{document}, {edition}" if edition else document,
        footer=" · ".join(p for p in (company, document, edition[:1].upper() + edition[1:],
                                      classification) if p),
        date=date)


ORYX = _letterhead("Oryx Wealth Partners Ltd", "Financial Crime Compliance Manual",
                   "version 2026.2", "Restricted", "D:20260218100000+04'00'")
SANDGROUSE = _letterhead("Sandgrouse Capital Markets Ltd", "AML, CTF and Sanctions Policy",
                         "version 3.1", "Internal", "D:20260305090000+04'00'")
KESTREL = _letterhead("Kestrel Corporate Services Ltd", "Financial Crime Prevention Policy",
                      "version 2.0", "Confidential", "D:20260610110000+04'00'")
HERON = _letterhead("Heron Remit & Payments Ltd", "AML, CTF and Sanctions Policy", "",
                    "Internal", "D:20261120100000+04'00'")
PLOVER = _letterhead("Plover Bullion & Gems Ltd", "AML/CFT Compliance Manual", "edition 4",
                     "Internal", "D:20261115090000+04'00'")
BITTERN = _letterhead("Bittern Property Advisors Ltd", "AML, CTF and Sanctions Manual",
                      "edition 3", "Confidential", "D:20270203090000+04'00'")
CURLEW = _letterhead("Curlew Asset Management Ltd", "Anti-Money Laundering and Sanctions Policy",
                     "version 1.4", "Internal", "D:20270115100000+04'00'")
GODWIT = _letterhead("Godwit Private Bank Ltd", "AML, CFT and Sanctions Policy", "version 5.0",
                     "Confidential", "D:20270301090000+04'00'")
REDSHANK = _letterhead("Redshank Partners LLP", "AML/CFT Policy", "version 2.2", "Internal",
                       "D:20270410090000+04'00'")
SHEARWATER = _letterhead("Shearwater Digital Markets Ltd", "Financial Crime Compliance Policy",
                         "version 3.1", "Confidential", "D:20270515090000+04'00'")
AVOCET = _letterhead("Avocet Life Assurance Ltd", "Financial Crime Compliance Manual", "edition 2",
                     "Restricted", "D:20270610090000+04'00'")
EGRET = _letterhead("Egret Chambers LLP", "Anti-Money Laundering and Counter-Terrorist Financing "
                    "Policy", "version 4.2", "Internal", "D:20270915090000+04'00'")
DEV_POLICIES = {p.name: p for p in (
    DevPolicy("oryx", _DEV / "oryx_policy.md", _DATA / "oryx_policy_gaps.json", ORYX,
              "Oryx Wealth Partners Financial Crime Compliance Manual"),
    DevPolicy("sandgrouse", _DEV / "sandgrouse_policy.md", _DATA / "sandgrouse_policy_gaps.json",
              SANDGROUSE, "Sandgrouse Capital Markets AML, CTF and Sanctions Policy"),
    DevPolicy("kestrel", _DEV / "kestrel_policy.md", _DATA / "kestrel_policy_gaps.json", KESTREL,
              "Kestrel Corporate Services Financial Crime Prevention Policy"),
    DevPolicy("heron", _DEV / "heron_policy.md", _DATA / "heron_policy_gaps.json", HERON,
              "Heron Remit & Payments AML, CTF and Sanctions Policy"),
    DevPolicy("plover", _DEV / "plover_policy.md", _DATA / "plover_policy_gaps.json", PLOVER,
              "Plover Bullion & Gems AML/CFT Compliance Manual"),
    DevPolicy("bittern", _DEV / "bittern_policy.md", _DATA / "bittern_policy_gaps.json",
              BITTERN, "Bittern Property Advisors AML, CTF and Sanctions Manual"),
    DevPolicy("curlew", _DEV / "curlew_policy.md", _DATA / "curlew_policy_gaps.json",
              CURLEW, "Curlew Asset Management Anti-Money Laundering and Sanctions Policy"),
    DevPolicy("godwit", _DEV / "godwit_policy.md", _DATA / "godwit_policy_gaps.json",
              GODWIT, "Godwit Private Bank AML, CFT and Sanctions Policy"),
    DevPolicy("redshank", _DEV / "redshank_policy.md", _DATA / "redshank_policy_gaps.json",
              REDSHANK, "Redshank Partners AML/CFT Policy"),
    DevPolicy("shearwater", _DEV / "shearwater_policy.md", _DATA / "shearwater_policy_gaps.json",
              SHEARWATER, "Shearwater Digital Markets Financial Crime Compliance Policy"),
    DevPolicy("avocet", _DEV / "avocet_policy.md", _DATA / "avocet_policy_gaps.json", AVOCET,
              "Avocet Life Assurance Financial Crime Compliance Manual"),
    DevPolicy("egret", _DEV / "egret_policy.md", _DATA / "egret_policy_gaps.json", EGRET,
              "Egret Chambers Anti-Money Laundering and Counter-Terrorist Financing Policy"),
)}
