"""The SMART-on-FHIR launched page: OAuth, the launched record, the page and what it shows."""
