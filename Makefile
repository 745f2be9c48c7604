# Sluice: `make run` serves the API locally; `make test` checks everything.
GO       ?= go
ARGS     ?=
# The Go client (client/) is a module of its own, joined to this one by go.work, so every check
# names it: ./... stops at a nested module.
PKGS     := ./... ./client/...

.PHONY: help run keyctl models-verify shield-translations apertium bench fuzz test vet fmt-check lint unit eval eval-% train-% compare-langid build npm-ci synth diff deploy infra-test cdk-cli browser-check browser-test
FUNCTIONS := run services authorizer dashboard
# CHROMIUM is the browser of the dashboard's browser test (Debian's chromium package).
CHROMIUM ?= /usr/bin/chromium

## help: list every target with what it does
help:
	@awk '/^## [a-z][a-zA-Z0-9, -]*:/ { sub(/^## /, ""); split($$0, p, ": "); printf "  %-22s %s\n", p[1], substr($$0, length(p[1]) + 3); next } \
	     /^## / { sub(/^## /, ""); printf "  %-22s %s\n", "", $$0 }' $(MAKEFILE_LIST)

## run: start the local server on the embedded store and print a dashboard sign-in link; with
## SLUICE_KEY set, seed that key
## (flags via ARGS="-addr 127.0.0.1:9090 ..."; the first run downloads modules and compiles)
run:
	@echo "Building bin/sluice-local. The first time, Go downloads modules and compiles about 400"
	@echo "packages (a minute or two; one dot per package); later starts take seconds."
	@bash -o pipefail -c "$(GO) build -v -o bin/sluice-local ./functions/local 2>&1 | awk -f scripts/progress.awk"
	@SLUICE_SEED_KEYS="$$SLUICE_KEY" exec bin/sluice-local $(ARGS)

## keyctl: build the operators' key tool as bin/keyctl (its exit codes reach the shell)
keyctl:
	$(GO) build -o bin/keyctl ./scripts/keyctl

## test: formatting, vet, staticcheck, then every test with the race detector (includes the
## end-to-end test that starts the local server as a process and drives it over HTTP, and the
## dashboard's test in headless Chromium when Chromium is installed; it says when it skips it)
test: fmt-check vet lint npm-ci browser-check unit

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)

lint:
	$(GO) tool staticcheck $(PKGS)

unit:
	SLUICE_CHROMIUM=$(CHROMIUM) $(GO) test -race -count=1 -timeout 12m $(PKGS)

browser-check:
	@if [ -x "$(CHROMIUM)" ]; then \
		echo "Chromium found at $(CHROMIUM): the dashboard's browser test runs with the unit tests."; \
	else \
		echo "SKIPPING the dashboard's browser test: no Chromium at $(CHROMIUM)."; \
		echo "  Install Debian's chromium package (apt-get install chromium; .ci/run does) or set CHROMIUM=/path."; \
	fi

## browser-test: only the dashboard's test in headless Chromium, verbose, with its figures
## (page weight, first contentful paint) and screenshots kept in SHOTS (default .data/screenshots)
SHOTS ?= .data/screenshots
browser-test: npm-ci
	SLUICE_CHROMIUM=$(CHROMIUM) SLUICE_SCREENSHOTS=$(abspath $(SHOTS)) $(GO) test -count=1 -v -run '^TestBrowser$$' ./internal/dashboard/browsertest/

## models-verify: train every model again from the shared data (DATA, default shared/data
## beside the repository) and compare with models.lock: byte for byte on the architecture it
## was locked on, by its evaluation figures elsewhere (docs/models.md says how long; not in
## make test, which checks the model files against the lock)
models-verify: shield-translations
	$(GO) run ./scripts/models $(DATA_FLAG) verify

## bench: measure this machine: services and the six-step pipeline (Go benchmarks, medians),
## binary sizes, the run function's cold start and memory, and the local server under load
bench:
	$(GO) run ./scripts/bench $(BENCH_ARGS)

## fuzz: run every fuzz target (each func FuzzXxx in a _test.go file, the services' included) for
## FUZZTIME each (default 60s), one after the other; make test runs only their seed corpora
FUZZTIME ?= 60s
fuzz:
	GO=$(GO) FUZZTIME=$(FUZZTIME) ./scripts/fuzz.sh

## build: the Lambda functions as dist/<function>/bootstrap for linux/arm64 (provided.al2023)
build:
	@for fn in $(FUNCTIONS); do \
		echo "build dist/$$fn/bootstrap"; \
		CGO_ENABLED=0 GOOS=linux GOARCH=arm64 $(GO) build -tags lambda.norpc -trimpath \
			-ldflags "-s -w" -o dist/$$fn/bootstrap ./functions/$$fn || exit 1; \
	done

## npm-ci: the pinned Node tools (dynalite for the DynamoDB tests, playwright-core for the
## browser test, the CDK CLI); the DynamoDB tests also run it if needed
npm-ci:
	npm ci --no-audit --no-fund

## eval: accuracy of every built-in model on held-out data, as tables; the data sets are read
## from DATA (default: shared/data beside the repository; docs/data.md lists them)
DATA ?=
DATA_FLAG = $(if $(DATA),-data $(DATA))
MODELS := langid shield pii toxicity intent
eval: $(addprefix eval-,$(MODELS))

## eval-MODEL: one model's evaluation, MODEL one of langid shield pii toxicity intent
eval-%:
	$(GO) run ./scripts/eval/$* $(DATA_FLAG)

## compare-langid: Sluice's language detection side by side with lingua-go (low and high
## accuracy) and whatlanggo on the lingua test data (its own Go module; about 6 min, 2.2 GB)
compare-langid:
	cd scripts/langid-compare && GOWORK=off $(GO) run . $(DATA_FLAG)

## train-MODEL: train one model with the flags models.lock records, install its files and
## record the run in the lock (MODEL one of langid shield pii toxicity intent; needs strace)
train-%:
	$(GO) run ./scripts/models $(DATA_FLAG) lock $*

## shield-translations: the shield's Spanish, French, Italian and Portuguese training text,
## machine-translated offline from real English attacks and requests by Debian's Apertium
## (installs the packages; about 7 minutes); train-shield and models-verify read its output
APERTIUM_PKGS := apertium lttoolbox cg3 apertium-eng-spa apertium-es-pt apertium-fr-es apertium-eng-cat apertium-cat-ita
apertium:
	@dpkg-query -W $(APERTIUM_PKGS) >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(APERTIUM_PKGS); }

shield-translations: apertium
	$(GO) run ./scripts/train/shield/translate $(DATA_FLAG)

train-shield: shield-translations
	$(GO) run ./scripts/models $(DATA_FLAG) lock shield

## synth, diff, deploy: the CDK app in infra/ through the pinned aws-cdk CLI (package-lock.json),
## one stack per region of cdk.json's context; pass CLI flags with CDK_ARGS, e.g.
## CDK_ARGS="-c stage=prod -c regions=eu-west-1,us-east-1". synth needs no AWS credentials;
## diff and deploy need them (see infra/README.md). All three build the functions first.
CDK_ARGS ?=
CDK      := JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION=1 JSII_DEPRECATED=quiet npx --no-install cdk

synth: build cdk-cli
	$(CDK) synth --quiet $(CDK_ARGS)

diff: build cdk-cli
	$(CDK) diff --all $(CDK_ARGS)

deploy: build cdk-cli
	$(CDK) deploy --all $(CDK_ARGS)

cdk-cli:
	@[ -x node_modules/.bin/cdk ] || npm ci --no-audit --no-fund

## infra-test: only the CDK assertion tests (make test runs them too, as part of ./...)
infra-test:
	$(GO) test -race -count=1 ./infra/...
