# Sluice: `make run` serves the API locally; `make test` checks everything.
GO       ?= go
ARGS     ?=
PKGS     := ./...

.PHONY: run test vet fmt-check lint unit eval build npm-ci
FUNCTIONS := run services authorizer

## run: start the local server on the embedded store (flags via ARGS="-addr 127.0.0.1:9090 ...")
run:
	$(GO) run ./functions/local $(ARGS)

## test: formatting, vet, staticcheck, then every test with the race detector (includes the
## end-to-end test that starts the local server as a process and drives it over HTTP)
test: fmt-check vet lint npm-ci unit

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)

lint:
	$(GO) tool staticcheck $(PKGS)

unit:
	$(GO) test -race -count=1 -timeout 12m $(PKGS)

## build: the Lambda functions as dist/<function>/bootstrap for linux/arm64 (provided.al2023)
build:
	@for fn in $(FUNCTIONS); do \
		echo "build dist/$$fn/bootstrap"; \
		CGO_ENABLED=0 GOOS=linux GOARCH=arm64 $(GO) build -tags lambda.norpc -trimpath \
			-ldflags "-s -w" -o dist/$$fn/bootstrap ./functions/$$fn || exit 1; \
	done

## npm-ci: the pinned Node tools (dynalite for the DynamoDB tests); the tests also run it if needed
npm-ci:
	npm ci --no-audit --no-fund

## eval: accuracy of every built-in model on held-out data (needs ../shared/data)
eval:
	$(GO) run ./scripts/eval/langid
	$(GO) run ./scripts/eval/shield
	$(GO) run ./scripts/eval/toxicity
	$(GO) run ./scripts/eval/pii
	$(GO) run ./scripts/eval/intent
