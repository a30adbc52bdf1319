"""Regulatory change: two versions of a regulation read into provisions, aligned provision by
provision, and each change typed (inserted, deleted, amended, renumbered, moved, split,
merged; substantive or editorial; the facts it changed). ``report.compare_texts`` is the
entry point."""
