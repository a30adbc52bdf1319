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
