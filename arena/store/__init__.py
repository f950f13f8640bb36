"""What a competition keeps on disk: state (status + journal), SGF records, the run lock, and
the writer that makes finished games durable off the event loop."""
