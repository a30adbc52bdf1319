"""Reports a compliance officer can hand on: an audit's findings and matrix as CSV, XLSX and
DOCX (``regintel audit export``, ``GET /api/conversations/{id}/audit/export``)."""
