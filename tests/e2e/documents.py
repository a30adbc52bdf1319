"""Small regulatory-looking PDFs the browser tests upload, made with PyMuPDF."""

from __future__ import annotations

AML_RULES = (
    "ADGM Anti-Money Laundering Rules 2025\n\n"
    "Rule 4.1 Customer due diligence. A Relevant Person must identify and verify the identity "
    "of every customer before establishing a Business Relationship. Enhanced due diligence must "
    "be applied to every Politically Exposed Person.\n\n"
    "Rule 4.2 Suspicious transactions. A Relevant Person must report any suspicious transaction "
    "to the Money Laundering Reporting Officer without delay. The MLRO must file a suspicious "
    "activity report with the Financial Intelligence Unit within two business days.\n\n"
    "Rule 4.3 Record keeping. A Relevant Person must keep records of customer due diligence and "
    "of every transaction for at least six years from the end of the Business Relationship.",
    "Rule 5.1 Training. A Relevant Person must provide anti-money laundering training to all "
    "relevant employees at least once a year.\n\n"
    "Rule 5.2 Sanctions screening. A Relevant Person must screen customers against the "
    "applicable sanctions lists before onboarding and whenever a list is updated.",
)

CONDUCT_RULES = (
    "ADGM Conduct of Business Rules 2025\n\n"
    "Rule 6.1 Client classification. An Authorised Person must classify each client as a "
    "Retail Client or a Professional Client before carrying on business with it.\n\n"
    "Rule 6.2 Complaints. An Authorised Person must acknowledge a complaint within five "
    "business days and resolve it within eight weeks.\n\n"
    "Rule 6.3 Record keeping. An Authorised Person must keep records of client communications "
    "for at least six years.",
)

POLICY = (
    "Falcon Test Bank Anti-Money Laundering Policy\n\n"
    "1. Customer due diligence. The bank identifies customers when an account is opened. "
    "Verification of identity may be completed within ninety days after onboarding.\n\n"
    "2. Suspicious activity. Staff should report suspicious transactions to their line manager "
    "at the end of each month.\n\n"
    "3. Record keeping. Customer records are kept for three years after the account is closed."
    "\n\n4. Training. Staff complete anti-money laundering training every two years."
    "\n\n5. Complaints. The bank acknowledges a client complaint within ten business days.",
)


def make_pdf(pages: tuple[str, ...], title: str) -> bytes:
    import pymupdf

    doc = pymupdf.open()
    for body in pages:
        page = doc.new_page()
        page.insert_textbox(pymupdf.Rect(50, 50, 550, 800), body, fontsize=11)
    doc.set_metadata({"title": title})
    data: bytes = doc.tobytes()
    doc.close()
    return data


# Articles 32–34 of the GDPR (Regulation (EU) 2016/679), as Markdown: a clause long enough to be
# cut into several passages, so one answer cites it more than once.
BREACH_RULES_MD = (
    "# Regulation (EU) 2016/679: personal data breaches\n"
    "\n"
    "## Article 32 Security of processing\n"
    "\n"
    "Taking into account the state of the art, the costs of implementation and the nature, "
    "scope, context and purposes of processing as well as the risk of varying likelihood and "
    "severity for the rights and freedoms of natural persons, the controller and the "
    "processor shall implement appropriate technical and organisational measures to ensure a "
    "level of security appropriate to the risk, including inter alia as appropriate:\n"
    "the pseudonymisation and encryption of personal data;\n"
    "the ability to ensure the ongoing confidentiality, integrity, availability and "
    "resilience of processing systems and services;\n"
    "the ability to restore the availability and access to personal data in a timely manner "
    "in the event of a physical or technical incident;\n"
    "a process for regularly testing, assessing and evaluating the effectiveness of technical"
    " and organisational measures for ensuring the security of the processing.\n"
    "In assessing the appropriate level of security account shall be taken in particular of "
    "the risks that are presented by processing, in particular from accidental or unlawful "
    "destruction, loss, alteration, unauthorised disclosure of, or access to personal data "
    "transmitted, stored or otherwise processed.\n"
    "Adherence to an approved code of conduct as referred to in Article 40 or an approved "
    "certification mechanism as referred to in Article 42 may be used as an element by which "
    "to demonstrate compliance with the requirements set out in paragraph 1 of this Article.\n"
    "The controller and processor shall take steps to ensure that any natural person acting "
    "under the authority of the controller or the processor who has access to personal data "
    "does not process them except on instructions from the controller, unless he or she is "
    "required to do so by Union or Member State law.\n"
    "\n"
    "## Article 33 Notification of a personal data breach to the supervisory authority\n"
    "\n"
    "In the case of a personal data breach, the controller shall without undue delay and, "
    "where feasible, not later than 72 hours after having become aware of it, notify the "
    "personal data breach to the supervisory authority competent in accordance with Article "
    "55, unless the personal data breach is unlikely to result in a risk to the rights and "
    "freedoms of natural persons. Where the notification to the supervisory authority is not "
    "made within 72 hours, it shall be accompanied by reasons for the delay.\n"
    "The processor shall notify the controller without undue delay after becoming aware of a "
    "personal data breach.\n"
    "The notification referred to in paragraph 1 shall at least:\n"
    "describe the nature of the personal data breach including where possible, the categories"
    " and approximate number of data subjects concerned and the categories and approximate "
    "number of personal data records concerned;\n"
    "communicate the name and contact details of the data protection officer or other contact"
    " point where more information can be obtained;\n"
    "describe the likely consequences of the personal data breach;\n"
    "describe the measures taken or proposed to be taken by the controller to address the "
    "personal data breach, including, where appropriate, measures to mitigate its possible "
    "adverse effects.\n"
    "Where, and in so far as, it is not possible to provide the information at the same time,"
    " the information may be provided in phases without undue further delay.\n"
    "The controller shall document any personal data breaches, comprising the facts relating "
    "to the personal data breach, its effects and the remedial action taken. That "
    "documentation shall enable the supervisory authority to verify compliance with this "
    "Article.\n"
    "\n"
    "## Article 34 Communication of a personal data breach to the data subject\n"
    "\n"
    "When the personal data breach is likely to result in a high risk to the rights and "
    "freedoms of natural persons, the controller shall communicate the personal data breach "
    "to the data subject without undue delay.\n"
    "The communication to the data subject referred to in paragraph 1 of this Article shall "
    "describe in clear and plain language the nature of the personal data breach and contain "
    "at least the information and measures referred to in points (b), (c) and (d) of Article "
    "33(3).\n"
    "The communication to the data subject referred to in paragraph 1 shall not be required "
    "if any of the following conditions are met:\n"
    "the controller has implemented appropriate technical and organisational protection "
    "measures, and those measures were applied to the personal data affected by the personal "
    "data breach, in particular those that render the personal data unintelligible to any "
    "person who is not authorised to access it, such as encryption;\n"
    "the controller has taken subsequent measures which ensure that the high risk to the "
    "rights and freedoms of data subjects referred to in paragraph 1 is no longer likely to "
    "materialise;\n"
    "it would involve disproportionate effort. In such a case, there shall instead be a "
    "public communication or similar measure whereby the data subjects are informed in an "
    "equally effective manner.\n"
    "If the controller has not already communicated the personal data breach to the data "
    "subject, the supervisory authority, having considered the likelihood of the personal "
    "data breach resulting in a high risk, may require it to do so or may decide that any of "
    "the conditions referred to in paragraph 3 are met.\n"
)
