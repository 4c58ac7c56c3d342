"""Which occurrences the contract is offered: every grounded one (the default), or the budgeted search."""
