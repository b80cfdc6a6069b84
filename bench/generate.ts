/**
 * Workflow generators for the benchmarks: realistic example-sized workflows (about 60
 * lines, varied by an index so no two files are alike) and long generated chains for
 * the scaling benchmark, each in HCL and in YAML. Every generated workflow validates
 * with no errors (the benchmarks check this, so a timing never measures an error path).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The workflow dialects the benchmarks generate. */
export type Dialect = "hcl" | "yaml";

const ENVS = ["dev", "staging", "prod", "qa", "canary"];
const TOOLS = ["make", "npm run", "cargo", "go", "just"];

/**
 * A realistic example-sized workflow (~60 lines of HCL): header, variables, locals, a
 * policy, a shell adapter, sometimes an agent, four steps with outcomes (a bounded retry
 * loop, expressions over `var`, `local` and `steps`, a function call), a branch and two
 * terminal states. `i` varies names, commands and which optional parts appear.
 */
export function realisticHcl(i: number): string {
  const env = ENVS[i % ENVS.length];
  const tool = TOOLS[i % TOOLS.length];
  const withAgent = i % 2 === 0;
  const review = withAgent
    ? `step "review_${i}" {
  agent = "reviewer"
  input { prompt = "Review the test report of \${var.service}: \${steps.test.stdout}" }
  outcome "success" { next = "gate" }
  outcome "failure" { next = "failed" }
}`
    : `step "review_${i}" {
  target = adapter.shell.default
  input { command = "${tool} lint --env \${upper(var.environment)}" }
  outcome "success" { next = "gate" }
  outcome "failure" { next = "failed" }
}`;
  return `# Generated benchmark workflow ${i}: build, test and review ${env}.
workflow "pipeline_${i}" {
  version       = "1"
  initial_state = "checkout"
  target_state  = "done"
}

variable "service" {
  type    = "string"
  default = "svc-${i}"
}

variable "environment" {
  type    = "string"
  default = "${env}"
}

locals {
  workdir = "/tmp/build-${i}"
  branch  = "release-${i % 7}"
}

policy { max_total_steps = ${40 + (i % 20)} }

adapter "shell" "default" {
  config { shell = "bash" }
}
${withAgent ? `\nagent "reviewer" {\n  adapter = "copilot"\n  config { model = "gpt-5" }\n}\n` : ""}
step "checkout" {
  target  = adapter.shell.default
  timeout = "${1 + (i % 5)}m"
  input { command = "git clone -b \${local.branch} https://example.com/\${var.service}.git \${local.workdir}" }
  outcome "success" { next = "build" }
  outcome "failure" { next = "failed" }
}

step "build" {
  target     = adapter.shell.default
  max_visits = ${2 + (i % 3)}
  input { command = "${tool} build -C \${local.workdir}" }
  outcome "success" {
    next   = "test"
    output = { artifact = "\${local.workdir}/out/\${var.service}" }
  }
  outcome "failure" { next = "build" }
}

step "test" {
  target = adapter.shell.default
  input { command = "${tool} test -C \${local.workdir} --env \${var.environment}" }
  outcome "success" { next = "review_${i}" }
  outcome "failure" { next = "failed" }
}

${review}

branch "gate" {
  arm {
    when = var.environment == "prod"
    next = "done"
  }
  default = "done"
}

state "done" { terminal = true }
state "failed" {
  terminal = true
  success  = false
}
`;
}

/** The YAML twin of {@link realisticHcl}: the same workflow in the YAML dialect. */
export function realisticYaml(i: number): string {
  const env = ENVS[i % ENVS.length];
  const tool = TOOLS[i % TOOLS.length];
  const withAgent = i % 2 === 0;
  const review = withAgent
    ? `  review_${i}:
    agent: reviewer
    input:
      prompt: "Review the test report of \${var.service}: \${steps.test.stdout}"
    outcomes:
      success: { next: gate }
      failure: { next: failed }`
    : `  review_${i}:
    target: adapter.shell.default
    input:
      command: "${tool} lint --env \${upper(var.environment)}"
    outcomes:
      success: { next: gate }
      failure: { next: failed }`;
  return `# Generated benchmark workflow ${i}: build, test and review ${env}.
workflow:
  name: pipeline_${i}
  version: "1"
  initial_state: checkout
  target_state: done
variables:
  service:
    type: string
    default: svc-${i}
  environment:
    type: string
    default: ${env}
locals:
  workdir: /tmp/build-${i}
  branch: release-${i % 7}
policy:
  max_total_steps: ${40 + (i % 20)}
adapters:
  shell.default:
    config:
      shell: bash
${withAgent ? `agents:\n  reviewer:\n    adapter: copilot\n    config:\n      model: gpt-5\n` : ""}steps:
  checkout:
    target: adapter.shell.default
    timeout: ${1 + (i % 5)}m
    input:
      command: "git clone -b \${local.branch} https://example.com/\${var.service}.git \${local.workdir}"
    outcomes:
      success: { next: build }
      failure: { next: failed }
  build:
    target: adapter.shell.default
    max_visits: ${2 + (i % 3)}
    input:
      command: "${tool} build -C \${local.workdir}"
    outcomes:
      success:
        next: test
        output:
          artifact: "\${local.workdir}/out/\${var.service}"
      failure: { next: build }
  test:
    target: adapter.shell.default
    input:
      command: "${tool} test -C \${local.workdir} --env \${var.environment}"
    outcomes:
      success: { next: review_${i} }
      failure: { next: failed }
${review}
branches:
  gate:
    arms:
      - when: "\${var.environment == \\"prod\\"}"
        next: done
    default: done
states:
  done: { terminal: true }
  failed: { terminal: true, success: false }
`;
}

/** A realistic workflow in either dialect ({@link realisticHcl} / {@link realisticYaml}). */
export function realistic(dialect: Dialect, i: number): string {
  return dialect === "hcl" ? realisticHcl(i) : realisticYaml(i);
}

/**
 * A chain of `steps` shell steps for the scaling benchmark: step k runs a command built
 * from `var`, `local` and the previous step's output, goes to step k+1 on success,
 * retries itself (bounded by `max_visits`) every fifth step, and otherwise fails to a
 * terminal state; the last step ends in `done`. Three states (done, failed, cancelled).
 */
export function chainHcl(steps: number): string {
  const out: string[] = [
    `workflow "chain_${steps}" {`,
    `  version       = "1"`,
    `  initial_state = "s0"`,
    `  target_state  = "done"`,
    `}`,
    ``,
    `variable "environment" {`,
    `  type    = "string"`,
    `  default = "dev"`,
    `}`,
    ``,
    `locals {`,
    `  workdir = "/tmp/chain"`,
    `}`,
    ``,
    `adapter "shell" "default" {`,
    `  config { shell = "bash" }`,
    `}`,
    ``,
  ];
  for (let k = 0; k < steps; k++) {
    const next = k + 1 < steps ? `s${k + 1}` : "done";
    const prev = k > 0 ? ` --after \${steps.s${k - 1}.stdout}` : "";
    const fail = k % 5 === 4 ? `s${k}` : k % 7 === 6 ? "cancelled" : "failed";
    out.push(
      `step "s${k}" {`,
      `  target = adapter.shell.default`,
      ...(k % 5 === 4 ? [`  max_visits = 3`] : []),
      `  input { command = "run ${k} --env \${var.environment} --dir \${local.workdir}/${k}${prev}" }`,
      `  outcome "success" { next = "${next}" }`,
      `  outcome "failure" { next = "${fail}" }`,
      `}`,
      ``,
    );
  }
  out.push(`state "done" { terminal = true }`, `state "failed" {`, `  terminal = true`, `  success  = false`, `}`, `state "cancelled" {`, `  terminal = true`, `  success  = false`, `}`, ``);
  return out.join("\n");
}

/** The YAML twin of {@link chainHcl}. */
export function chainYaml(steps: number): string {
  const out: string[] = [
    `workflow:`,
    `  name: chain_${steps}`,
    `  version: "1"`,
    `  initial_state: s0`,
    `  target_state: done`,
    `variables:`,
    `  environment: { type: string, default: dev }`,
    `locals:`,
    `  workdir: /tmp/chain`,
    `adapters:`,
    `  shell.default:`,
    `    config: { shell: bash }`,
    `steps:`,
  ];
  for (let k = 0; k < steps; k++) {
    const next = k + 1 < steps ? `s${k + 1}` : "done";
    const prev = k > 0 ? ` --after \${steps.s${k - 1}.stdout}` : "";
    const fail = k % 5 === 4 ? `s${k}` : k % 7 === 6 ? "cancelled" : "failed";
    out.push(
      `  s${k}:`,
      `    target: adapter.shell.default`,
      ...(k % 5 === 4 ? [`    max_visits: 3`] : []),
      `    input:`,
      `      command: "run ${k} --env \${var.environment} --dir \${local.workdir}/${k}${prev}"`,
      `    outcomes:`,
      `      success: { next: ${next} }`,
      `      failure: { next: ${fail} }`,
    );
  }
  out.push(`states:`, `  done: { terminal: true }`, `  failed: { terminal: true, success: false }`, `  cancelled: { terminal: true, success: false }`, ``);
  return out.join("\n");
}

/** A chain workflow in either dialect ({@link chainHcl} / {@link chainYaml}). */
export function chain(dialect: Dialect, steps: number): string {
  return dialect === "hcl" ? chainHcl(steps) : chainYaml(steps);
}

/**
 * Writes `count` realistic workflows (`wf-000.hcl`, ... or `.yaml`) into `dir`
 * (created if missing) and returns their paths in order.
 */
export function writeRealistic(dir: string, dialect: Dialect, count: number): string[] {
  mkdirSync(dir, { recursive: true });
  const paths: string[] = [];
  for (let i = 0; i < count; i++) {
    const p = join(dir, `wf-${String(i).padStart(3, "0")}.${dialect}`);
    writeFileSync(p, realistic(dialect, i));
    paths.push(p);
  }
  return paths;
}

/**
 * The HCL parser issue's big file: noop steps with a 400-character input each, chained
 * until the text reaches `bytes` (3 MiB gives 6,334 steps), ending in `done`. Built in
 * linear time (the length is summed as steps are added). Also used by
 * test/compiler/limits.test.ts.
 */
export function bigNoteFile(bytes: number): { text: string; steps: number } {
  const steps: string[] = [];
  let length = 0;
  while (length < bytes) {
    const i = steps.length;
    const step = `step "s${i}" {\n  adapter = "noop"\n  input { note = "${"n".repeat(400)}" }\n  outcome "success" { next = "s${i + 1}" }\n}`;
    steps.push(step);
    length += step.length + 1;
  }
  const n = steps.length;
  steps[n - 1] = steps[n - 1].replace(`next = "s${n}"`, `next = "done"`);
  return { text: `workflow "big" {\n  version = "1"\n  initial_state = "s0"\n  target_state = "done"\n}\n${steps.join("\n")}\nstate "done" { terminal = true }\n`, steps: n };
}
