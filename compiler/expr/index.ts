/**
 * Public API of the expression language (HCL native-syntax expressions and templates).
 *
 * - parse.ts: `parseExpression(text, base)`, `parseTemplate(text, base)` -> `{ expr?, errors }`
 * - references.ts: `references(expr)`, `functionCalls(expr)`
 * - eval.ts: `evaluate(expr, { variables, functions })` -> `{ value?, errors }`
 * - functions.ts: `makeFunctions({ readFile })`, `functionDocs()`, `functionNames()`
 * - value.ts: `Value`, conversions, `FunctionError`
 * All offsets are absolute 0-based UTF-16 indexes (base offset + index into the text).
 * No function here throws on bad input.
 */
export type * from "./ast.js";
export { childExprs } from "./ast.js";
export { parseExpression, parseTemplate, MAX_NESTING, MAX_AST_DEPTH, type ParseResult } from "./parse.js";
export { references, functionCalls, type Reference, type FunctionCallRef } from "./references.js";
export { evaluate, MAX_EVAL_STEPS, MAX_STRING_LENGTH, type EvalContext, type EvalError, type EvalResult } from "./eval.js";
export { makeFunctions, functionDocs, functionNames, type FunctionDoc, type FunctionOptions } from "./functions.js";
export {
  FunctionError, deepEqual, formatNumber, jsonEncode, toBool, toNumber, toStr, typeName,
  type Attempt, type FunctionDef, type FunctionTable, type ObjectValue, type Value,
} from "./value.js";
export { closestName } from "../diagnostics/did-you-mean.js";
