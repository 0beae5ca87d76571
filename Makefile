# Quietwire: `make dev` runs the whole product at http://localhost:8080; `make test` runs every test.
SHELL := /bin/bash
.DEFAULT_GOAL := help
NPM_STAMP := node_modules/.install-stamp

.PHONY: help install infra packages web services dev seed-demo test e2e bench up up-cluster lint format typecheck clean screenshots

help:
	@echo "make dev    install, set up the database, build the web app and run everything at http://localhost:8080"
	@echo "make seed-demo  two years of demo customers in the running \`make dev\` product (for the Analytics page)"
	@echo "make services  compile each service into plain JavaScript (services/<name>/dist/main.mjs; make dev does it too)"
	@echo "make test   install and run every test (unit, integration, end-to-end, browser)"
	@echo "make e2e    only the end-to-end and browser tests"
	@echo "make screenshots  the browser tests, photographing every screen into test-results/screenshots"
	@echo "make bench  benchmarks, one table of figures beside their baselines (NAME=<name> runs one, SIZE=tiny in seconds)"
	@echo "make up     the same product under Docker Compose (needs a Docker engine)"
	@echo "make up-cluster  the same with three NATS servers and two replicas of every service"
	@echo "make lint   formatting and lint rules (Biome), then type-check every workspace"
	@echo "make format rewrite files the way the formatter wants them"

$(NPM_STAMP): package.json package-lock.json $(wildcard libs/*/package.json services/*/package.json web/package.json)
	npm ci --no-audit --no-fund
	@touch $@

install: $(NPM_STAMP)

infra:
	@bash scripts/ensure-infra.sh

packages:
	@bash scripts/ensure-system-packages.sh

web: install
	cd web && npx vite build --logLevel warn

services: install
	npx tsx scripts/build-services.ts

dev: install infra packages web
	npx tsx scripts/dev.ts

typecheck: install
	npx tsc -p tsconfig.json --noEmit
	@if [ -f web/tsconfig.json ]; then npx tsc -p web/tsconfig.json --noEmit; fi

lint: install
	npx biome check .
	@$(MAKE) --no-print-directory typecheck

format: install
	npx biome check --write .

seed-demo: install
	npx tsx scripts/seed-demo-history.ts

test: install infra packages web lint
	@mkdir -p test-results
	npx vitest run --reporter=default --reporter=json --outputFile.json=test-results/vitest.json; status=$$?; \
	  npx tsx scripts/test-summary.ts test-results/vitest.json; exit $$status

e2e: install infra packages web
	npx vitest run services/gateway/test web/test

# The browser tests, each photographing the screens it checks into test-results/screenshots.
screenshots: install infra packages web
	QW_SCREENSHOTS=1 npx vitest run web/test

bench: install infra
	BENCH_SIZE=$(or $(SIZE),$(BENCH_SIZE),full) npx tsx bench/run.ts $(NAME)

up: install
	docker compose --env-file $$(npx tsx scripts/compose-env.ts) up --build

# Three NATS servers in one cluster and two replicas of every service (docker-compose.yml, profile cluster).
up-cluster: install
	NATS_STREAM_REPLICAS=3 NATS_CONFIG=nats-cluster.conf docker compose --env-file $$(npx tsx scripts/compose-env.ts) --profile cluster up --build

clean:
	rm -rf node_modules */*/node_modules web/dist services/*/dist var test-results
