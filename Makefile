# criteria — build, check and run workflows. Every target installs dependencies first
# when node_modules is missing, so each works on a fresh clone.
SHELL := /bin/bash
CRITERIA := node bin/criteria
SHARED := ../shared/criteria
# The real workflow files from the Go tool's users that must keep validating: every
# era, every v0.5.7 example module (each callee directory validated on its own too).
# Absent ../shared (a clone of this repository alone), only our examples are validated.
V05 := $(SHARED)/v0.5.7/examples
REAL_FILES := $(wildcard $(SHARED)/v0.2.0/*.hcl) $(wildcard $(SHARED)/v0.3.0/*.hcl) \
  $(wildcard $(SHARED)/w14-f9cadf3/phase3-subworkflow/parent.hcl) $(wildcard $(SHARED)/w14-f9cadf3/phase3-subworkflow/subworkflows/inner) \
  $(wildcard $(V05)/hello $(V05)/subworkflow $(V05)/subworkflow/subworkflows/inner $(V05)/llm-pack/05-subworkflow/child) $(patsubst %/,%,$(wildcard $(V05)/llm-pack/0*/))

.PHONY: all install build typecheck test validate demo pictures bench mutation clean

all: build

node_modules/.package-lock.json: package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

install: node_modules/.package-lock.json

# The build's last output is the bundle's code cache: a `tsc` run alone (which refreshes
# dist/cli.js) does not make the bundle look up to date.
BUILT := dist/bundle/criteria.cjs.cache
$(BUILT): node_modules/.package-lock.json $(shell find cli.ts cli compiler engine bench -name '*.ts' 2>/dev/null) tsconfig.json schema/workflow.schema.json scripts/build-assets.mjs scripts/bundle.mjs scripts/code-cache.mjs bin/load-bundle.cjs
	npx tsc -p tsconfig.json
	node scripts/build-assets.mjs
	node scripts/bundle.mjs
	@touch $@

build: $(BUILT)

# The tests are type-checked too (vitest strips types without checking them).
typecheck: node_modules/.package-lock.json
	npx tsc -p tsconfig.test.json

test: build typecheck
	npx vitest run

validate: build
	$(CRITERIA) validate examples/* examples/flow_as_agent/chief.hcl $(REAL_FILES)

# The main job on an example: validate, run the executor <-> CI <-> reviewer loop
# (scripted local agents and shell steps, no external service), print its journal.
demo: build
	@rm -rf .criteria/demo
	$(CRITERIA) validate examples/review_loop
	$(CRITERIA) apply examples/review_loop --state-dir .criteria/demo --run-id demo --output text
	$(CRITERIA) journal demo --state-dir .criteria/demo

# Each example's picture (criteria graph: SVG laid out by Graphviz in WebAssembly), kept
# beside it; test/graph/graph.test.ts fails when one is not what this writes now.
pictures: build
	@for d in examples/*/; do $(CRITERIA) graph "$$d" > "$$d/graph.svg" 2>/dev/null || exit 1; done
	@echo "pictures: examples/*/graph.svg"

bench: build
	node dist/bench/index.js

clean:
	rm -rf dist

# Mutation testing of the core modules (StrykerJS, stryker.config.mjs); slow on two cores,
# incremental after the first run. MUTATE=compiler/check narrows it. Report:
# reports/mutation/mutation.html and the score per file on the terminal.
mutation: build
	npx stryker run
