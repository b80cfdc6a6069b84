/**
 * The executor of templatefile's text/template: walks the parse tree over the data
 * (actions, if/with/range, variables, field chains, function calls), enforcing the
 * limits; and the entry points parseGoTemplate, executeGoTemplate and renderGoTemplate.
 *
 * Source: Go's text/template/exec.go behaviour as text/template documents it
 * (https://pkg.go.dev/text/template), with missingkey=error; see index.ts.
 */
import type { ObjectValue, Value } from "../../value.js";
import { BUILTINS, CallError } from "./builtins.js";
import { fmtArg, NO_FLAGS } from "./fmt.js";
import { Lexer } from "./lex.js";
import { lineCol, Parser, type Arg, type Cmd, type Pipe, type Span, type TNode } from "./parse.js";
import {
  GO_TEMPLATE_LIMITS, GoInt, GoTemplateError, isTrue, sortedMapKeys, toGoValue, typeOf, utf8Length,
  type GoTemplateErrorKind, type GoVal,
} from "./values.js";

const MISSING = Symbol("missing");
type Final = GoVal | typeof MISSING;
const BREAK = Symbol("break");
const CONTINUE = Symbol("continue");

class Exec {
  private readonly out: string[] = [];
  private bytes = 0;
  private iterations = 0;
  private work = 0;
  private readonly vars: { name: string; value: GoVal }[];
  private at: Span = { pos: 0, end: 0 };

  constructor(private readonly src: string, private readonly name: string, data: GoVal) {
    this.vars = [{ name: "$", value: data }];
  }

  run(list: TNode[], data: GoVal): string {
    this.walk(data, list);
    return this.out.join("");
  }

  private fail(msg: string, kind: GoTemplateErrorKind = "exec"): never {
    const [line, col] = lineCol(this.src, this.at.pos);
    let ctx = this.src.slice(this.at.pos, Math.max(this.at.pos, this.at.end)).replace(/\s+/g, " ").trim();
    if (ctx.length > 20) ctx = ctx.slice(0, 20) + "...";
    throw new GoTemplateError(`${this.name}:${line}:${col}: ${ctx ? `at <${ctx}>: ` : ""}${msg}`, kind, line, col);
  }

  private write(s: string): void {
    this.bytes += utf8Length(s);
    if (this.bytes > GO_TEMPLATE_LIMITS.outputBytes) {
      this.fail(`the output is larger than ${GO_TEMPLATE_LIMITS.outputBytes} bytes (4 MiB)`, "limit");
    }
    this.out.push(s);
  }

  private walk(dot: GoVal, list: TNode[]): void {
    for (const n of list) {
      switch (n.t) {
        case "text":
          this.write(n.text);
          break;
        case "action": {
          const v = this.evalPipeline(dot, n.pipe);
          if (n.pipe.decl.length === 0) {
            this.at = n.pipe;
            this.write(v === null ? "<no value>" : fmtArg(v, "v", NO_FLAGS));
          }
          break;
        }
        case "if":
        case "with":
          this.walkIfOrWith(dot, n);
          break;
        case "range":
          this.walkRange(dot, n);
          break;
        case "break":
          throw BREAK;
        case "continue":
          throw CONTINUE;
      }
    }
  }

  private walkIfOrWith(dot: GoVal, n: Extract<TNode, { t: "if" | "with" }>): void {
    const mark = this.vars.length;
    try {
      for (const b of n.branches) {
        const v = this.evalPipeline(dot, b.pipe);
        if (isTrue(v)) {
          this.walk(n.t === "with" ? v : dot, b.list);
          return;
        }
      }
      if (n.elseList) this.walk(dot, n.elseList);
    } finally {
      this.vars.length = mark;
    }
  }

  private walkRange(dot: GoVal, n: Extract<TNode, { t: "range" }>): void {
    const mark = this.vars.length;
    try {
      const val = this.evalPipeline(dot, n.pipe);
      const inner = this.vars.length;
      const decl = n.pipe.decl;
      const one = (index: GoVal, elem: GoVal) => {
        if (++this.iterations > GO_TEMPLATE_LIMITS.iterations) {
          this.at = n.pipe;
          this.fail(`range loops ran more than ${GO_TEMPLATE_LIMITS.iterations} iterations`, "limit");
        }
        if (n.pipe.isAssign) {
          if (decl.length > 0) this.setVar(decl[decl.length - 1], elem);
          if (decl.length > 1) this.setVar(decl[0], index);
        } else {
          if (decl.length > 0) this.vars[inner - 1].value = elem;
          if (decl.length > 1) this.vars[inner - 2].value = index;
        }
        try {
          this.walk(elem, n.list);
        } catch (e) {
          if (e !== CONTINUE) throw e;
        } finally {
          this.vars.length = inner;
        }
      };
      let ran = false;
      try {
        if (Array.isArray(val)) {
          for (let i = 0; i < val.length; i++) one(new GoInt(BigInt(i), "int"), val[i]);
          ran = val.length > 0;
        } else if (val instanceof Map) {
          for (const k of sortedMapKeys(val)) one(k, val.get(k)!);
          ran = val.size > 0;
        } else if (val instanceof GoInt) {
          if (decl.length > 1) {
            this.at = n.pipe;
            this.fail(`can't use ${val.v} to iterate over more than one variable`);
          }
          for (let i = 0n; i < val.v; i++) one(null, new GoInt(i, val.type));
          ran = val.v > 0n;
        } else if (val !== null) {
          this.at = n.pipe;
          this.fail(`range can't iterate over ${fmtArg(val, "v", NO_FLAGS)}`);
        }
      } catch (e) {
        if (e === BREAK) return;
        throw e;
      }
      if (!ran && n.elseList) this.walk(dot, n.elseList);
    } finally {
      this.vars.length = mark;
    }
  }

  private setVar(name: string, value: GoVal): void {
    for (let i = this.vars.length - 1; i >= 0; i--) {
      if (this.vars[i].name === name) {
        this.vars[i].value = value;
        return;
      }
    }
    this.fail(`undefined variable: ${name}`);
  }

  private varValue(name: string): GoVal {
    for (let i = this.vars.length - 1; i >= 0; i--) if (this.vars[i].name === name) return this.vars[i].value;
    return this.fail(`undefined variable: ${name}`);
  }

  private evalPipeline(dot: GoVal, pipe: Pipe): GoVal {
    this.at = pipe;
    let value: Final = MISSING;
    for (const cmd of pipe.cmds) value = this.evalCommand(dot, cmd, value);
    const v = value === MISSING ? null : value;
    this.at = pipe;
    for (const d of pipe.decl) {
      if (pipe.isAssign) this.setVar(d, v);
      else this.vars.push({ name: d, value: v });
    }
    return v;
  }

  private notAFunction(args: Arg[], final: Final): void {
    if (args.length > 1 || final !== MISSING) {
      this.fail(`can't give argument to non-function ${this.src.slice(args[0].pos, args[0].end)}`);
    }
  }

  private evalCommand(dot: GoVal, cmd: Cmd, final: Final): GoVal {
    const first = cmd.args[0];
    this.at = first;
    switch (first.t) {
      case "field":
        return this.evalFieldChain(dot, first, first.idents, cmd.args, final);
      case "chain":
        return this.evalChain(dot, first, cmd.args, final);
      case "ident":
        return this.evalCall(dot, first.name, cmd, cmd.args.slice(1), final);
      case "pipe":
        this.notAFunction(cmd.args, final);
        return this.evalPipeline(dot, first.pipe);
      case "var":
        return this.evalVariable(first, cmd.args, final);
    }
    this.notAFunction(cmd.args, final);
    switch (first.t) {
      case "nil":
        return this.fail("nil is not a command");
      case "dot":
        return dot;
      default:
        return first.v;
    }
  }

  private evalFieldChain(receiver: GoVal, node: Span, idents: string[], args: Arg[], final: Final): GoVal {
    this.at = node;
    for (let i = 0; i < idents.length; i++) {
      const name = idents[i];
      const last = i === idents.length - 1;
      if (receiver === null) this.fail(`nil data; no entry for key ${JSON.stringify(name)}`, "missingkey");
      if (!(receiver instanceof Map)) this.fail(`can't evaluate field ${name} in type ${typeOf(receiver)}`);
      if (last && (args.length > 1 || final !== MISSING)) this.fail(`${name} is not a method but has arguments`);
      const v = receiver.get(name);
      if (v === undefined) this.fail(`map has no entry for key ${JSON.stringify(name)}`, "missingkey");
      receiver = v;
    }
    return receiver;
  }

  private evalChain(dot: GoVal, chain: Extract<Arg, { t: "chain" }>, args: Arg[], final: Final): GoVal {
    if (chain.node.t === "nil") {
      this.at = chain;
      this.fail(`indirection through explicit nil in ${this.src.slice(chain.pos, chain.end)}`);
    }
    const receiver = this.evalArg(dot, chain.node);
    return this.evalFieldChain(receiver, chain, chain.fields, args, final);
  }

  private evalVariable(v: Extract<Arg, { t: "var" }>, args: Arg[], final: Final): GoVal {
    this.at = v;
    const value = this.varValue(v.name);
    if (v.idents.length === 0) {
      this.notAFunction(args, final);
      return value;
    }
    return this.evalFieldChain(value, v, v.idents, args, final);
  }

  /** An argument's value (Go's evalArg for interface{} and reflect.Value parameters). */
  private evalArg(dot: GoVal, node: Arg): GoVal {
    this.at = node;
    switch (node.t) {
      case "dot":
        return dot;
      case "nil":
        return null;
      case "field":
        return this.evalFieldChain(dot, node, node.idents, [node], MISSING);
      case "var":
        return this.evalVariable(node, [node], MISSING);
      case "pipe":
        return this.evalPipeline(dot, node.pipe);
      case "ident":
        return this.evalCall(dot, node.name, node, [], MISSING);
      case "chain":
        return this.evalChain(dot, node, [node], MISSING);
      default:
        return node.v;
    }
  }

  /** printf's format: a string argument (Go's evalArg for a string parameter). */
  private evalStringArg(dot: GoVal, node: Arg): string {
    this.at = node;
    if (node.t === "string") return node.v;
    if (node.t === "nil") this.fail("cannot assign nil to string");
    if (node.t === "bool" || node.t === "number") this.fail(`expected string; found ${this.src.slice(node.pos, node.end)}`);
    const v = this.evalArg(dot, node);
    return this.checkString(v, node);
  }

  private checkString(v: GoVal, at: Span): string {
    if (typeof v === "string") return v;
    this.at = at;
    return this.fail(v === null ? "invalid value; expected string" : `wrong type for value; expected string; got ${typeOf(v)}`);
  }

  private evalCall(dot: GoVal, name: string, node: Span, args: Arg[], final: Final): GoVal {
    const fn = BUILTINS[name];
    const numIn = args.length + (final === MISSING ? 0 : 1);
    this.at = node;
    if (fn.variadic ? numIn < fn.params : numIn !== fn.params) {
      this.fail(`wrong number of args for ${name}: want ${fn.variadic ? "at least " : ""}${fn.params} got ${numIn}`);
    }
    if (name === "and" || name === "or") {
      let v: GoVal = null;
      for (const a of args) {
        v = this.evalArg(dot, a);
        if (isTrue(v) === (name === "or")) return v;
      }
      return final === MISSING ? v : final;
    }
    const argv: GoVal[] = [];
    args.forEach((a, i) => argv.push(name === "printf" && i === 0 ? this.evalStringArg(dot, a) : this.evalArg(dot, a)));
    if (final !== MISSING) argv.push(name === "printf" && args.length === 0 ? this.checkString(final, node) : final);
    this.at = node;
    let result: GoVal;
    try {
      result = fn.impl(argv);
    } catch (e) {
      if (e instanceof CallError) this.fail(`error calling ${name}: ${e.message}`);
      throw e;
    }
    if (typeof result === "string") {
      this.work += result.length;
      if (result.length > GO_TEMPLATE_LIMITS.outputBytes) this.fail(`${name} made a string longer than the output limit of 4 MiB`, "limit");
      if (this.work > GO_TEMPLATE_LIMITS.workChars) this.fail(`functions made more than ${GO_TEMPLATE_LIMITS.workChars} characters of strings`, "limit");
    }
    return result;
  }
}

// ---------------------------------------------------------------------------
// Entry points.

/** A parsed template. */
export interface GoTemplate {
  readonly name: string;
  readonly text: string;
  readonly root: readonly TNode[];
}

/** Parses template text; `name` (the file's path) prefixes error messages. Throws `GoTemplateError`. */
export function parseGoTemplate(text: string, name: string): GoTemplate {
  const fail = (pos: number, msg: string): never => {
    const [line, col] = lineCol(text, pos);
    throw new GoTemplateError(`${name}:${line}:${col}: ${msg}`, "syntax", line, col);
  };
  const toks = new Lexer(text).run();
  return { name, text, root: new Parser(toks, text, fail).parse() };
}

/** Executes a parsed template with `data` as `.` and `$`. Throws `GoTemplateError`. */
export function executeGoTemplate(t: GoTemplate, data: Value): string {
  const root = toGoValue(data);
  return new Exec(t.text, t.name, root).run(t.root as TNode[], root);
}

/** Parses and executes: what `templatefile` does with a file's text and its `vars`. */
export function renderGoTemplate(text: string, vars: ObjectValue, name: string): string {
  return executeGoTemplate(parseGoTemplate(text, name), vars);
}
