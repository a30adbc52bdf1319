"""The obligation register and the coverage matrix (issue 36): every obligation sentence of a
regulation with its rule number, list items, conditions, actor and typed facts (extract,
facts, rules), kept per document (register), and a policy mapped against them (matrix,
findings). General mechanisms only: no term of one regulation in this package."""
