"""Who may call the service: JWT checks, trusted issuers and their key sets, replay."""
