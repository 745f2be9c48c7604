# Sluice: `make run` serves the API locally; `make test` checks everything.
GO       ?= go
ARGS     ?=
PKGS     := ./...

.PHONY: run test vet fmt-check lint unit eval

## run: start the local server on the embedded store (flags via ARGS="-addr 127.0.0.1:9090 ...")
run:
	$(GO) run ./functions/local $(ARGS)

## test: formatting, vet, staticcheck, then every test with the race detector (includes the
## end-to-end test that starts the local server as a process and drives it over HTTP)
test: fmt-check vet lint unit

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)

lint:
	$(GO) tool staticcheck $(PKGS)

unit:
	$(GO) test -race -count=1 -timeout 12m $(PKGS)

## eval: accuracy of every built-in model on held-out data (needs ../shared/data)
eval:
	$(GO) run ./scripts/eval/langid
	$(GO) run ./scripts/eval/shield
	$(GO) run ./scripts/eval/toxicity
	$(GO) run ./scripts/eval/pii
	$(GO) run ./scripts/eval/intent
