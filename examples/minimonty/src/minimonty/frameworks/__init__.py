"""Runtime code: what the system does and what it can say about itself.

Nothing in this package knows who is running it or why. Modules here emit
telemetry about their own state; which of it is collected, and what it is
compared against, is decided by whoever configures logging.
"""
