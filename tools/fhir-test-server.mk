# Test FHIR server (Medplum fhir-router in-memory repository behind node:http), used by
# tests/cds_hooks to fetch missing prefetch over real HTTP. Include from the top Makefile:
#   include tools/fhir-test-server.mk
#   test: venv fhir-test-server
FHIR_TEST_SERVER := tools/fhir-test-server
FHIR_TEST_SERVER_STAMP := $(FHIR_TEST_SERVER)/node_modules/.installed

.PHONY: fhir-test-server

$(FHIR_TEST_SERVER_STAMP): $(FHIR_TEST_SERVER)/package.json $(FHIR_TEST_SERVER)/package-lock.json
	cd $(FHIR_TEST_SERVER) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

fhir-test-server: $(FHIR_TEST_SERVER_STAMP)
