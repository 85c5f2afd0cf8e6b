"""The finding model: findings, fingerprints, the rule registry, reports and the census."""
