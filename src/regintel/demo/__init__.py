"""Demo material: the sample company policy and the demo corpus loader."""
