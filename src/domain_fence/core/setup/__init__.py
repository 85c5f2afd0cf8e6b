"""What ``domain-fence init`` writes: the project's layout and the presets."""
