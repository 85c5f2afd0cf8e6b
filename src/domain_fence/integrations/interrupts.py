"""What an interrupted run says and ends with, for every console script and the layers
under them (a Ctrl-C, or a SIGTERM taken as one: see :mod:`.console`)."""

EXIT_INTERRUPTED = 130  # the shell's status for Ctrl-C
INTERRUPTED = "domain-fence: interrupted"
